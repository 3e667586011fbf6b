package jsonlex

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/internal/testdata"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/binary32.txt")

// binary32Vectors are SPEC.md §3.10's layout rule worked by hand, one row
// per case of its table and each edge between them.
var binary32Vectors = []struct {
	f    float32
	text string
}{
	{0, "0.0"},
	{float32(math.Copysign(0, -1)), "-0.0"},
	{1, "1.0"},
	{-2.3433902, "-2.3433902"},
	{123, "123.0"},
	{1234000, "1234000.0"},
	{16777216, "16777216.0"},
	{1e12, "1000000000000.0"}, // kk = 13: the last plain integer
	{1e13, "1e13"},            // kk = 14: exponent form
	{1.5e13, "1.5e13"},
	{9999999e6, "9999999000000.0"},
	{12.34, "12.34"},
	{2097152.25, "2097152.2"}, // a tie between .2 and .3: the even digit
	{0.1, "0.1"},
	{-0.0003801489, "-0.0003801489"},
	{1e-4, "0.0001"},
	{1e-5, "0.00001"}, // kk = -4: the last with leading zeros
	{-0.000013067608, "-0.000013067608"},
	{9.99e-6, "9.99e-6"}, // kk = -5: exponent form
	{-5.3193703e-6, "-5.3193703e-6"},
	{1e-6, "1e-6"},
	{math.SmallestNonzeroFloat32, "1e-45"},
	{1.0 / 4096, "0.00024414062"},      // 2^-12, a tie at a power of two: the even digit (strconv's shortest has ...63)
	{-1.1754942e-38, "-1.1754942e-38"}, // the largest subnormal
	{math.MaxFloat32, "3.4028235e38"},
}

func TestBinary32Vectors(t *testing.T) {
	for _, v := range binary32Vectors {
		if got := string(AppendBinary32(nil, v.f)); got != v.text {
			t.Errorf("AppendBinary32(%g) = %s, want %s", v.f, got, v.text)
		}
		f, ok := Binary32([]byte(v.text))
		if !ok || math.Float32bits(f) != math.Float32bits(v.f) {
			t.Errorf("Binary32(%s) = %g, %v; want %g, true", v.text, f, ok, v.f)
		}
	}
}

// TestBinary32NotExact: numbers that the layout does not write travel as
// JSON; Binary32 must refuse each.
func TestBinary32NotExact(t *testing.T) {
	for _, s := range []string{
		"-0.50", "-0.28217773", "1e-5", "1E13", "1.0e13", "10000000000000.0", "0.000001",
		"1", "-0", "0", "+1.0", "01.0", ".5", "1.", "1e", "Inf", "-Inf", "NaN", "infinity",
		"1e39", "-3.5e38", "1e-50", "0x1p-2", "1_0.0", "0.10", "2097152.3", "", "-1234567890000.00",
		"0.12345678901", "3.4028236e38", "1e-46", "7e-46",
	} {
		if f, ok := Binary32([]byte(s)); ok {
			t.Errorf("Binary32(%q) = %g, true; want false", s, f)
		}
	}
}

// layoutOracle is the rule of SPEC.md §3.10 written a second way, on
// strings, from strconv's 'e' form.
func layoutOracle(f float32) string {
	if f == 0 {
		if math.Signbit(float64(f)) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(float64(f), 'e', -1, 32)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	n := len(digits)
	kk := e + 1
	k := kk - n
	switch {
	case k >= 0 && kk <= 13:
		return sign + digits + strings.Repeat("0", k) + ".0"
	case kk > 0 && kk <= 13:
		return sign + digits[:kk] + "." + digits[kk:]
	case kk > -5 && kk <= 0:
		return sign + "0." + strings.Repeat("0", -kk) + digits
	case n == 1:
		return sign + digits + "e" + strconv.Itoa(kk-1)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1)
}

// TestBinary32Property: every finite float32 lays out as the oracle does,
// reads back to the same bits, and a number written any other way (other
// layouts, other digits) is taken exactly when it is the layout's text.
func TestBinary32Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bits := rapid.Uint32().Draw(t, "bits")
		if bits&0x7F800000 == 0x7F800000 {
			bits &^= 0x40000000 // NaN and infinities have no layout
		}
		f := math.Float32frombits(bits)
		text := AppendBinary32(nil, f)
		// The oracle takes strconv's digits, which break the one tie at a
		// power of two (2^-12, a vector) otherwise.
		if d := cmp.Diff(layoutOracle(f), string(text)); d != "" && bits&0x7FFFFF != 0 {
			t.Fatalf("%08X: layout (-oracle +AppendBinary32):\n%s", bits, d)
		}
		g, ok := Binary32(text)
		if !ok || math.Float32bits(g) != bits {
			t.Fatalf("%08X: Binary32(%s) = %08X, %v", bits, text, math.Float32bits(g), ok)
		}
		others := []string{
			strconv.FormatFloat(float64(f), 'g', -1, 32),
			strconv.FormatFloat(float64(f), 'e', -1, 32),
			strconv.FormatFloat(float64(f), 'f', -1, 32),
			strconv.FormatFloat(float64(f), 'g', -1, 64),
			strconv.FormatFloat(float64(f), 'f', rapid.IntRange(0, 12).Draw(t, "prec"), 64),
			string(text) + "0",
			strings.Replace(string(text), "e", "e+", 1),
			strings.Replace(string(text), "e", "E", 1),
		}
		for _, s := range others {
			v, err := strconv.ParseFloat(s, 32)
			want := err == nil && s == string(AppendBinary32(nil, float32(v)))
			if g, ok := Binary32([]byte(s)); ok != want || ok && math.Float32bits(g) != math.Float32bits(float32(v)) {
				t.Fatalf("Binary32(%q) = %g, %v; want exact %v", s, g, ok, want)
			}
		}
	})
}

// TestParseBinary32: the fast reading of a number agrees with
// strconv.ParseFloat(num, 32) wherever it answers: random decimals of up
// to 12 digits and exponents of up to 50, float32 midpoints (16777217 is
// one: it must round to even) and the layouts of random floats.
func TestParseBinary32(t *testing.T) {
	for _, s := range []string{"16777217.0", "16777219.0", "0.0", "-0.0", "1e-45", "3.4028235e38", "1e39"} {
		checkParse(t, s)
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`-?(0|[1-9][0-9]{0,11})(\.[0-9]{1,12})?(e-?[0-9]{1,2})?`).Draw(t, "decimal")
		checkParse(t, s)
		bits := rapid.Uint32().Draw(t, "bits")
		if bits&0x7F800000 != 0x7F800000 {
			checkParse(t, string(AppendBinary32(nil, math.Float32frombits(bits))))
		}
	})
}

// TestShortestDigits: the exact test of Binary32's fast path agrees with
// the formatter: yes exactly for v's shortest closest digits, no for other
// digits that read back as v (one more digit, one unit off, a digit
// dropped), and unsure, for the formatter, never wrong. Every logprob of
// testdata/chat that is binary32 is decided by the fast path (zero by its
// own rule).
func TestShortestDigits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bits := rapid.OneOf(rapid.Uint32(), rapid.Uint32Range(0xB0000000, 0xC1000000)).Draw(t, "bits")
		if bits&0x7F800000 == 0x7F800000 || bits&0x7FFFFFFF == 0 {
			return
		}
		f := math.Float32frombits(bits)
		e := strconv.FormatFloat(float64(f), 'e', -1, 32)
		mant, exp, _ := strings.Cut(strings.TrimPrefix(e, "-"), "e")
		digits := strings.Replace(mant, ".", "", 1)
		x, _ := strconv.Atoi(exp)
		d, _ := strconv.ParseUint(digits, 10, 64)
		q := x - len(digits) + 1
		got := shortestDigits(f, decimal{d, q})
		if got == verdictNo {
			t.Fatalf("%s: no, want yes (or unsure)", e)
		}
		for _, alt := range []decimal{{d*10 + uint64(rapid.IntRange(1, 9).Draw(t, "extra")), q - 1}, {d + 1, q}, {d - 1, q}, {d / 10, q + 1}, {d/10 + 1, q + 1}} {
			if alt.d == 0 || alt.d%10 == 0 {
				continue
			}
			r, err := strconv.ParseFloat(strconv.FormatUint(alt.d, 10)+"e"+strconv.Itoa(alt.q), 32)
			if err != nil || float32(r) != float32(math.Abs(float64(f))) {
				continue // does not read back as v: never asked
			}
			if a := shortestDigits(f, alt); a == verdictYes {
				t.Fatalf("%s: %de%d is not its shortest closest digits, got yes", e, alt.d, alt.q)
			}
		}
	})
	re := regexp.MustCompile(`"logprob":(-?[0-9.e-]+)`)
	for name, b := range testdata.Chat(t) {
		for _, m := range re.FindAllSubmatch(b, -1) {
			v, dec, ok := parseBinary32(m[1])
			if _, exact := Binary32(m[1]); exact && v != 0 && (!ok || shortestDigits(v, dec) != verdictYes) {
				t.Errorf("%s: logprob %s not decided by the fast path", name, m[1])
			}
		}
	}
}

func checkParse(t interface{ Fatalf(string, ...any) }, s string) {
	got, _, ok := parseBinary32([]byte(s))
	want, err := strconv.ParseFloat(s, 32)
	if ok && (err != nil || math.Float32bits(got) != math.Float32bits(float32(want))) {
		t.Fatalf("parseBinary32(%s) = %g (%08X), strconv %g, %v", s, got, math.Float32bits(got), want, err)
	}
}

func TestBinary32Allocs(t *testing.T) {
	buf := make([]byte, 0, MaxBinary32)
	num := []byte("-5.3193703e-6")
	if n := testing.AllocsPerRun(100, func() {
		f, _ := Binary32(num)
		buf = AppendBinary32(buf[:0], f)
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// binary32Values are the floats of testdata/golden/binary32.txt: the
// vectors, every binade's first, last and middle values and a few others,
// powers of ten and their neighbours, the ties of [2^21, 2^24), and random
// bit patterns, each with both signs.
func binary32Values() []uint32 {
	var out []uint32
	for _, v := range binary32Vectors {
		out = append(out, math.Float32bits(v.f))
	}
	r := rand.New(rand.NewPCG(22, 3))
	for e := range uint32(255) {
		for _, m := range []uint32{0, 1, 2, 0x400000, 0x7FFFFE, 0x7FFFFF, r.Uint32N(1 << 23), r.Uint32N(1 << 23)} {
			out = append(out, e<<23|m)
		}
	}
	for p := -46; p <= 39; p++ {
		f := float32(math.Pow10(p))
		if math.IsInf(float64(f), 0) {
			continue
		}
		b := math.Float32bits(f)
		out = append(out, b-1, b, b+1)
	}
	for _, base := range []float32{2097152, 4194304, 8388608} {
		for i := range 8 {
			out = append(out, math.Float32bits(base+float32(i)*0.25), math.Float32bits(base*2+float32(i)*2))
		}
	}
	for range 2000 {
		out = append(out, r.Uint32()&^0x80000000)
	}
	var all []uint32
	for _, b := range out {
		if b&0x7F800000 == 0x7F800000 {
			continue
		}
		all = append(all, b&^0x80000000, b|0x80000000)
	}
	return all
}

// TestBinary32Golden pins the layout of many floats in
// testdata/golden/binary32.txt, one "BITS TEXT" line each (bits in hex),
// which the JavaScript package's tests check its own layout against. When
// it was written, its digits and those of 16.6 million more floats (every
// power of two, every subnormal, every float of [2^21, 2^22) with an odd
// mantissa, where ties are, and 4 million random ones) were the same as
// dtolnay/ryu's Buffer::format for f32 (built from its source with rustc),
// which strconv's shortest alone is not at 2^-12. go test ./internal/jsonlex -run TestBinary32Golden -update
// rewrites it.
func TestBinary32Golden(t *testing.T) {
	var b bytes.Buffer
	for _, bits := range binary32Values() {
		fmt.Fprintf(&b, "%08X %s\n", bits, AppendBinary32(nil, math.Float32frombits(bits)))
	}
	testdata.Golden(t, testdata.Path("golden", "binary32.txt"), b.Bytes(), *update, "go test ./internal/jsonlex -run TestBinary32Golden -update")
}

// BenchmarkBinary32 measures what the chat Decoder spends on a logprob
// (Binary32: parse, lay out, compare) and the Encoder (AppendBinary32),
// beside strconv.ParseFloat alone, the least a reader of the number pays.
func BenchmarkBinary32(b *testing.B) {
	num := []byte("-0.0003801489")
	b.Run("Binary32", func(b *testing.B) {
		for b.Loop() {
			Binary32(num)
		}
	})
	b.Run("AppendBinary32", func(b *testing.B) {
		buf := make([]byte, 0, MaxBinary32)
		for b.Loop() {
			buf = AppendBinary32(buf[:0], -0.0003801489)
		}
	})
	b.Run("strconv.ParseFloat", func(b *testing.B) {
		for b.Loop() {
			strconv.ParseFloat(string(num), 32)
		}
	})
}
