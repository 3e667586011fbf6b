package vocab

import (
	"bytes"
	"encoding/binary"
	"strconv"
)

// The IDs llama2.c's run.c gives its special tokens, SentencePiece's
// defaults: unk_id 0, bos_id 1, eos_id 2.
const (
	llama2cUnk = 0
	llama2cBOS = 1
	llama2cEOS = 2
)

// ParseLlama2c reads a llama2.c tokenizer.bin into a SentencePiece
// Vocabulary. The file is int32 max_token_length, then for each token in
// ID order float32 score, int32 len, len bytes of piece, all
// little-endian, up to the end of the file (the vocabulary size is the
// model's, not the file's). IDs 0, 1 and 2 are the special tokens unk, BOS
// and EOS, named by their piece without surrounding white space ("<s>");
// a piece "<0xXX>" (upper-case hex, as SentencePiece writes it) is the byte
// XX. Scores are not kept: decoding does not need them.
//
// A length is checked against max_token_length and against the bytes left
// before anything is read, so a file claiming huge sizes allocates nothing
// for them. Errors are *Error with the byte offset of the field at fault.
// The Vocabulary holds no reference to data.
func ParseLlama2c(data []byte) (*Vocabulary, error) {
	if len(data) < 4 {
		return nil, fileErr(len(data), ErrTruncated, "max_token_length, want 4 bytes")
	}
	maxLen := int32(binary.LittleEndian.Uint32(data))
	if maxLen <= 0 || maxLen > MaxTokenLen {
		return nil, fileErr(0, ErrMalformed, "max_token_length "+strconv.Itoa(int(maxLen))+", want 1 to "+strconv.Itoa(MaxTokenLen))
	}
	// Each token takes at least 8 bytes, which bounds the table by the input.
	v := &Vocabulary{kind: SentencePiece, bos: llama2cBOS, tab: make([]entry, 0, (len(data)-4)/8), sum: new(summary)}
	buf := make([]byte, 0, len(data)-4)
	for pos := 4; pos < len(data); {
		if len(v.tab) >= MaxTokens {
			return nil, fileErr(pos, ErrTooLarge, "more than "+strconv.Itoa(MaxTokens)+" tokens")
		}
		if len(data)-pos < 8 {
			return nil, fileErr(len(data), ErrTruncated, "token "+strconv.Itoa(len(v.tab))+": score and length, want 8 bytes")
		}
		n := int32(binary.LittleEndian.Uint32(data[pos+4:]))
		if n < 0 || n > maxLen {
			return nil, fileErr(pos+4, ErrMalformed, "token "+strconv.Itoa(len(v.tab))+": length "+strconv.Itoa(int(n))+", want 0 to max_token_length "+strconv.Itoa(int(maxLen)))
		}
		pos += 8
		if len(data)-pos < int(n) {
			return nil, fileErr(len(data), ErrTruncated, "token "+strconv.Itoa(len(v.tab))+": piece of "+strconv.Itoa(int(n))+" bytes")
		}
		piece := data[pos : pos+int(n)]
		pos += int(n)
		e := entry{off: uint32(len(buf)), flag: ordinary}
		switch id := len(v.tab); {
		case id <= llama2cEOS:
			e.flag = special
			piece = bytes.TrimSpace(piece)
			if len(piece) == 0 {
				return nil, fileErr(pos-int(n), ErrMalformed, "special token "+strconv.Itoa(id)+" has an empty name")
			}
		default:
			if b, ok := bytePiece(piece); ok {
				e.flag = bytePc
				piece = []byte{b}
			}
		}
		e.n = uint16(len(piece))
		buf = append(buf, piece...)
		v.tab = append(v.tab, e)
	}
	v.data = buf
	v.finish()
	return v, nil
}

// bytePiece reports whether p is a SentencePiece byte piece, "<0xXX>" with
// XX two upper-case hex digits, and the byte it stands for.
func bytePiece(p []byte) (byte, bool) {
	if len(p) != 6 || string(p[:3]) != "<0x" || p[5] != '>' {
		return 0, false
	}
	hi, ok1 := hexDigit(p[3])
	lo, ok2 := hexDigit(p[4])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
