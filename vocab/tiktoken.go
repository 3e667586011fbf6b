package vocab

import (
	"bytes"
	"encoding/base64"
	"sort"
	"strconv"
)

// CL100KBaseSpecials returns cl100k_base's special-token table, as tiktoken
// defines it.
func CL100KBaseSpecials() map[string]uint32 {
	return map[string]uint32{
		"<|endoftext|>":   100257,
		"<|fim_prefix|>":  100258,
		"<|fim_middle|>":  100259,
		"<|fim_suffix|>":  100260,
		"<|endofprompt|>": 100276,
	}
}

// O200KBaseSpecials returns o200k_base's special-token table, as tiktoken
// defines it.
func O200KBaseSpecials() map[string]uint32 {
	return map[string]uint32{
		"<|endoftext|>":   199999,
		"<|endofprompt|>": 200018,
	}
}

// maxGap bounds the IDs a tiktoken vocabulary may leave unused.
const maxGap = 1 << 16

// ParseTiktoken reads a .tiktoken file, lines of base64(token bytes) SP
// rank LF, and a special-token table (name → ID; nil for none) into a
// ByteLevel Vocabulary. The rank is the token's ID. As tiktoken's loader
// does, it skips empty lines and accepts a last line without LF; base64
// must be canonical (RFC 4648 padding, zero trailing bits), ranks decimal
// without sign or leading zeros, each ID used once, and at most 65,536 IDs
// below the largest unused (so memory is bounded by the file's size). Errors are *Error with
// the byte offset of the line at fault (-1 for the special table).
// The Vocabulary holds no reference to data.
func ParseTiktoken(data []byte, specials map[string]uint32) (*Vocabulary, error) {
	type rec struct {
		id     uint32
		off, n uint32
		pos    int
	}
	recs := make([]rec, 0, bytes.Count(data, []byte{'\n'})+1)
	buf := make([]byte, 0, len(data)*3/4+64)
	maxID := int64(-1)
	enc := base64.StdEncoding.Strict()
	for pos := 0; pos < len(data); {
		line := data[pos:]
		next := len(data)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		if len(line) == 0 {
			pos = next
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fileErr(pos, ErrMalformed, "line without a space, want base64 SP rank")
		}
		b64, rank := line[:sp], line[sp+1:]
		id, ok := parseRank(rank)
		if !ok {
			return nil, fileErr(pos+sp+1, ErrMalformed, "rank "+strconv.Quote(string(rank))+", want a decimal number")
		}
		if id >= MaxTokens {
			return nil, fileErr(pos+sp+1, ErrTooLarge, "rank "+strconv.FormatUint(id, 10)+", want below "+strconv.Itoa(MaxTokens))
		}
		if enc.DecodedLen(len(b64)) > MaxTokenLen {
			return nil, fileErr(pos, ErrTooLarge, "token of "+strconv.Itoa(enc.DecodedLen(len(b64)))+" bytes, want at most "+strconv.Itoa(MaxTokenLen))
		}
		start := len(buf)
		var err error
		buf, err = enc.AppendDecode(buf, b64)
		if err != nil {
			return nil, fileErr(pos, ErrMalformed, "token bytes: "+err.Error())
		}
		recs = append(recs, rec{uint32(id), uint32(start), uint32(len(buf) - start), pos})
		maxID = max(maxID, int64(id))
		pos = next
	}
	// The special names go after the tokens' bytes, sorted so that the
	// result does not depend on map order.
	names := make([]string, 0, len(specials))
	for name, id := range specials {
		if id >= MaxTokens {
			return nil, fileErr(-1, ErrTooLarge, "special token "+strconv.Quote(name)+" ID "+strconv.FormatUint(uint64(id), 10))
		}
		if len(name) == 0 || len(name) > MaxTokenLen {
			return nil, fileErr(-1, ErrMalformed, "special token name of "+strconv.Itoa(len(name))+" bytes")
		}
		names = append(names, name)
		maxID = max(maxID, int64(id))
	}
	sort.Strings(names)
	// The table is by ID, so a lone large rank would cost memory the file
	// does not justify: IDs may leave gaps (o200k_base leaves a few below its
	// specials) but not more than maxGap in all.
	if maxID >= int64(len(recs)+len(names)+maxGap) {
		return nil, fileErr(-1, ErrTooLarge, "largest ID "+strconv.FormatInt(maxID, 10)+" for "+strconv.Itoa(len(recs)+len(names))+" tokens, want fewer than "+strconv.Itoa(maxGap)+" IDs unused")
	}
	v := &Vocabulary{kind: ByteLevel, bos: -1, tab: make([]entry, maxID+1), sum: new(summary)}
	for _, r := range recs {
		if v.tab[r.id].flag != absent {
			return nil, fileErr(r.pos, ErrMalformed, "rank "+strconv.FormatUint(uint64(r.id), 10)+" used twice")
		}
		v.tab[r.id] = entry{off: r.off, n: uint16(r.n), flag: ordinary}
	}
	for _, name := range names {
		id := specials[name]
		if v.tab[id].flag != absent {
			return nil, fileErr(-1, ErrMalformed, "special token "+strconv.Quote(name)+" has ID "+strconv.FormatUint(uint64(id), 10)+", which is taken")
		}
		v.tab[id] = entry{off: uint32(len(buf)), n: uint16(len(name)), flag: special}
		buf = append(buf, name...)
	}
	v.data = buf
	v.finish()
	return v, nil
}

// parseRank parses a canonical decimal: digits, no leading zero but "0".
func parseRank(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 10 || b[0] == '0' && len(b) > 1 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
