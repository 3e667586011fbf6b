package anthhttp

import (
	"bytes"
	"strconv"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
)

// sseIDs makes an event stream from frames with the API's Encoder and
// gives each event an id: field, its cursor (§13.3): "N", the offset
// after the frame that made it, for a frame's last event; "N.k", the
// frame's own offset and the events of it before and with this one, for
// the others. The id goes last in the event, "id:N\n", 4 bytes and the
// digits.
type sseIDs struct {
	enc bridge.Encoder
	ev  bytes.Buffer // the Encoder's events for one frame
	off int64        // offset of the next frame
}

func newSSEIDs(api bridge.API, body []byte) *sseIDs {
	s := &sseIDs{}
	s.enc = api.NewEncoder(&s.ev, false, body)
	s.enc.Write(frame.AppendMagic(nil))
	return s
}

// add appends to dst the events of f, one whole frame, each with its id,
// but the first skip of them.
func (s *sseIDs) add(dst, f []byte, skip int) []byte {
	s.ev.Reset()
	start := s.off
	s.off += int64(len(f))
	s.enc.Write(f) // frames the gateway's own Decoder made: the Encoder takes them
	ev := s.ev.Bytes()
	k := bytes.Count(ev, eventEnd)
	for j := 1; len(ev) > 0; j++ {
		i := bytes.Index(ev, eventEnd)
		if i < 0 {
			break
		}
		e := ev[:i+1]
		ev = ev[i+2:]
		if j <= skip {
			continue
		}
		dst = append(dst, e...)
		dst = append(dst, "id:"...)
		if j == k {
			dst = strconv.AppendInt(dst, s.off, 10)
		} else {
			dst = strconv.AppendInt(dst, start, 10)
			dst = append(dst, '.')
			dst = strconv.AppendInt(dst, int64(j), 10)
		}
		dst = append(dst, "\n\n"...)
	}
	return dst
}

// eventEnd ends every event an Encoder writes: its data lines' last
// newline and the blank line.
var eventEnd = []byte("\n\n")
