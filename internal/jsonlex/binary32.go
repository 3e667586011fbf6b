package jsonlex

import (
	"bytes"
	"math"
	"math/bits"
	"strconv"
)

// MaxBinary32 is the longest number AppendBinary32 writes:
// "-1234567890000.0", sign, 13 integer digits and ".0".
const MaxBinary32 = 16

// AppendBinary32 appends the JSON number that SPEC.md §3.10's layout rule
// writes for a finite f (EVENT encoding 2): f's shortest round-trip
// digits as a float32, d digits standing for digits × 10^k, laid out by
// kk = d + k as the OpenAI API writes logprobs (the pretty layout of Rust's
// ryu crate, with the leading-zero range of its f64 printer):
//
//	f == 0               "0.0", "-0.0"
//	k ≥ 0 and kk ≤ 13    digits, k zeros, ".0"        1234000.0
//	0 < kk ≤ 13          digits with a point after kk  12.34
//	-5 < kk ≤ 0          "0.", -kk zeros, digits       0.0001234
//	otherwise            d[.ddd]e<kk-1>, no '+', no zero padding: 1.234e-5, 1e13
//
// NaN and infinities have no layout; AppendBinary32 writes "null" for them,
// which no EVENT of encoding 2 carries (frame refuses them).
func AppendBinary32(b []byte, f float32) []byte {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return append(b, "null"...)
	}
	if math.Signbit(float64(f)) {
		b = append(b, '-')
		f = -f
	}
	if f == 0 {
		return append(b, "0.0"...)
	}
	// strconv writes d.ddde±XX: the shortest digits that read back as f,
	// the closest of them, ties to even, as ryu, except at a power of two,
	// where two candidates can be equally close and strconv takes the
	// greater (2^-12: 0.00024414063; ryu and the rule: 0.00024414062).
	var scratch [24]byte
	var s []byte
	if math.Float32bits(f)&0x7FFFFF == 0 {
		s = appendShortestSlow(scratch[:0], f)
	} else {
		s = strconv.AppendFloat(scratch[:0], float64(f), 'e', -1, 32)
	}
	var digits [9]byte
	n, i := 0, 0
	for ; s[i] != 'e'; i++ {
		if s[i] != '.' {
			digits[n] = s[i]
			n++
		}
	}
	e := 0
	for _, c := range s[i+2:] {
		e = e*10 + int(c-'0')
	}
	if s[i+1] == '-' {
		e = -e
	}
	return appendLayout(b, digits[:n], e+1)
}

// appendLayout appends digits d₁…dₙ (no sign, no trailing zero) standing
// for d₁.d₂…dₙ × 10^(kk-1) in SPEC.md §3.10's layout.
func appendLayout(b, digits []byte, kk int) []byte {
	n := len(digits)
	k := kk - n
	switch {
	case k >= 0 && kk <= 13:
		b = append(b, digits...)
		for range k {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	case kk > 0 && kk <= 13:
		b = append(b, digits[:kk]...)
		b = append(b, '.')
		return append(b, digits[kk:]...)
	case kk > -5 && kk <= 0:
		b = append(b, "0."...)
		for range -kk {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[0])
	if n > 1 {
		b = append(b, '.')
		b = append(b, digits[1:]...)
	}
	b = append(b, 'e')
	return strconv.AppendInt(b, int64(kk-1), 10)
}

// Binary32 returns the float32 that AppendBinary32 writes num for, exactly
// num, and true; false for any other text (not a number, not shortest for
// a float32, another layout of it, out of float32's range). An encoder
// carries num as EVENT encoding 2 only when this says true (SPEC.md §3.10),
// so that writing it back gives the bytes it read.
func Binary32(num []byte) (float32, bool) {
	if len(num) == 0 || len(num) > MaxBinary32 {
		return 0, false
	}
	c := num[len(num)-1]
	if c < '0' || c > '9' { // "Inf", "NaN", "1e", "1." are not numbers of the layout
		return 0, false
	}
	v, dec, ok := parseBinary32(num)
	if !ok {
		return 0, false
	}
	if v == 0 {
		return v, string(num) == "0.0" || string(num) == "-0.0"
	}
	var scratch [MaxBinary32]byte
	if dec.d != 0 {
		// Most numbers are decided without formatting v: num's digits are
		// v's shortest and closest ones, exactly, or they are not.
		switch shortestDigits(v, dec) {
		case verdictNo:
			return 0, false
		case verdictYes:
			b := scratch[:0]
			if num[0] == '-' {
				b = append(b, '-')
			}
			var digits [20]byte
			ds := strconv.AppendUint(digits[:0], dec.d, 10)
			if string(appendLayout(b, ds, len(ds)+dec.q)) != string(num) {
				return 0, false
			}
			return v, true
		}
	}
	if string(AppendBinary32(scratch[:0], v)) != string(num) {
		return 0, false
	}
	return v, true
}

// decimal is a number as read: d × 10^q, d without trailing zeros, or
// d = 0 when parseBinary32 had to ask strconv.
type decimal struct {
	d uint64
	q int
}

// verdict is shortestDigits' answer.
type verdict int

const (
	verdictUnsure verdict = iota // for the formatter to decide
	verdictYes
	verdictNo
)

// pow5 are the powers of five below 2^64 that shortestDigits needs.
var pow5 = [...]uint64{1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625,
	48828125, 244140625, 1220703125, 6103515625, 30517578125, 152587890625, 762939453125,
	3814697265625, 19073486328125, 95367431640625, 476837158203125, 2384185791015625}

// shortestDigits says whether x.d × 10^x.q, which reads back as v, is v's
// shortest digits, the closest of them (SPEC.md §3.10), without
// formatting v: no decimal with fewer digits reads back as v (by
// convexity, one of the two at the next scale that bracket x would), and
// x is within half a unit of its last digit of v, exactly (integers of
// 128 bits). A tie, a power of two (whose interval is lopsided) or
// numbers out of those integers' reach are unsure, for the formatter.
func shortestDigits(v float32, x decimal) verdict {
	fb := math.Float32bits(v) &^ (1 << 31)
	if fb&0x7FFFFF == 0 || x.q < -21 || x.q > 21 {
		return verdictUnsure
	}
	if x.d >= 10 {
		c := x.d / 10
		for _, cand := range [2]uint64{c, c + 1} {
			r, ok := fastRead(cand, x.q+1)
			if !ok {
				return verdictUnsure
			}
			if float32(r) == math.Float32frombits(fb) {
				return verdictNo
			}
		}
	}
	// v·2 against (2d±1)·10^q, both as an integer of 128 bits times a
	// power of two.
	m, e := uint64(fb&0x7FFFFF), int(fb>>23)-150
	if fb>>23 == 0 {
		e = -149
	} else {
		m |= 1 << 23
	}
	var xh, xl, yh, yl uint64
	xa, ya := e+1, 0
	if x.q >= 0 {
		xh, xl = 0, m
		ya = x.q
	} else {
		xh, xl = bits.Mul64(m, pow5[-x.q])
		xa = e + 1 - x.q
	}
	for _, odd := range [2]uint64{2*x.d + 1, 2*x.d - 1} {
		if x.q >= 0 {
			yh, yl = bits.Mul64(odd, pow5[x.q])
		} else {
			yh, yl = 0, odd
		}
		c := cmpScaled(xh, xl, xa, yh, yl, ya)
		if c == 0 {
			return verdictUnsure // a tie: which digit is even is the formatter's
		}
		if odd > 2*x.d && c > 0 || odd < 2*x.d && c < 0 {
			return verdictNo // v is nearer another d
		}
	}
	return verdictYes
}

// fastRead returns c × 10^q as the float64 nearest it, when one float64
// operation gives that and its float32 rounding is v's (not a midpoint).
func fastRead(c uint64, q int) (float64, bool) {
	r := float64(c)
	switch {
	case q >= 0 && q < len(pow10):
		r *= pow10[q]
	case q < 0 && -q < len(pow10):
		r /= pow10[-q]
	default:
		return 0, false
	}
	// On a float32 midpoint the float64 may have been rounded onto it, and
	// its float32 rounding is then not c × 10^q's, unless it is c × 10^q:
	// an integer product under 2^53 is exact.
	return r, math.Float64bits(r)&(1<<29-1) != 1<<28 || q >= 0 && r < 1<<53
}

// cmpScaled compares (xh:xl) × 2^xa with (yh:yl) × 2^ya, both nonzero.
func cmpScaled(xh, xl uint64, xa int, yh, yl uint64, ya int) int {
	lx, ly := len128(xh, xl)+xa, len128(yh, yl)+ya
	if lx != ly {
		if lx < ly {
			return -1
		}
		return 1
	}
	// Same top bit: shift the one with the greater exponent up to the
	// other's; it stays within 128 bits.
	if xa > ya {
		xh, xl = shl128(xh, xl, uint(xa-ya))
	} else if ya > xa {
		yh, yl = shl128(yh, yl, uint(ya-xa))
	}
	switch {
	case xh != yh:
		if xh < yh {
			return -1
		}
		return 1
	case xl != yl:
		if xl < yl {
			return -1
		}
		return 1
	}
	return 0
}

func len128(h, l uint64) int {
	if h != 0 {
		return 64 + bits.Len64(h)
	}
	return bits.Len64(l)
}

func shl128(h, l uint64, s uint) (uint64, uint64) {
	if s >= 64 {
		return l << (s - 64), 0
	}
	if s == 0 {
		return h, l
	}
	return h<<s | l>>(64-s), l << s
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseBinary32 reads num, a number the layout may have written, as the
// float32 nearest it; false for text the layout never writes (not
// -?digits[.digits][e-?digits], or more than 9 significant digits). It is
// strconv.ParseFloat(num, 32) for those, a third of its time: d × 10^q
// with d < 10^9 and |q| ≤ 22 is one correctly rounded float64 operation
// (Clinger's fast path), and rounding that to float32 is correct unless
// it fell exactly on a float32 midpoint without being exact, which
// strconv then decides.
func parseBinary32(num []byte) (float32, decimal, bool) {
	i, neg := 0, false
	if num[0] == '-' {
		i, neg = 1, true
	}
	// The value is d × 10^(q+z): d the significant digits up to the last
	// nonzero one, z the zeros after it.
	var d uint64
	n, q, z, point, digits := 0, 0, 0, false, false
	for ; i < len(num); i++ {
		c := num[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
			if point {
				q--
			}
			if c == '0' {
				if d != 0 {
					z++
				}
				continue
			}
			if n += z + 1; n > 9 {
				return 0, decimal{}, false
			}
			for ; z > 0; z-- {
				d *= 10
			}
			d = d*10 + uint64(c-'0')
			continue
		case c == '.' && !point && digits:
			point = true
			continue
		}
		break
	}
	if !digits {
		return 0, decimal{}, false
	}
	if i < len(num) {
		if num[i] != 'e' || i+1 == len(num) {
			return 0, decimal{}, false
		}
		i++
		eneg := num[i] == '-'
		if eneg {
			i++
		}
		e := 0
		for ; i < len(num); i++ {
			c := num[i]
			if c < '0' || c > '9' || e > 99 {
				return 0, decimal{}, false
			}
			e = e*10 + int(c-'0')
		}
		if eneg {
			e = -e
		}
		q += e
	}
	q += z
	r := float64(d)
	switch {
	case d == 0:
	case q >= 0 && q < len(pow10):
		r *= pow10[q]
	case q < 0 && -q < len(pow10):
		r /= pow10[-q]
	default:
		return slowBinary32(num)
	}
	// A float32 midpoint has 25 significant bits: the float64's lowest 29
	// bits are 1 followed by 28 zeros.
	if math.Float64bits(r)&(1<<29-1) == 1<<28 && (q < 0 || r >= 1<<53) {
		return slowBinary32(num)
	}
	if neg {
		r = -r
	}
	return float32(r), decimal{d, q}, true
}

func slowBinary32(num []byte) (float32, decimal, bool) {
	v, err := strconv.ParseFloat(string(num), 32)
	return float32(v), decimal{}, err == nil
}

// appendShortestSlow appends f's shortest round-trip digits in strconv's
// 'e' form, found by length: at each precision the correctly rounded
// digits (ties to even) and their neighbour on the other side of f are the
// only candidates, and the first that reads back as f wins, the nearer
// first. It is the rule itself, slow (a microsecond), for the floats
// (powers of two) where strconv's shortest breaks a tie otherwise.
func appendShortestSlow(b []byte, f float32) []byte {
	for prec := range 9 {
		s := strconv.AppendFloat(b, float64(f), 'e', prec, 64)
		if v, err := strconv.ParseFloat(string(s), 32); err == nil && float32(v) == f {
			return s
		}
		// The neighbour: the digits one unit in the last place away, on
		// the other side of f.
		ei := bytes.IndexByte(s, 'e')
		var buf [24]byte
		digits := append(buf[:0], s[0])
		if prec > 0 {
			digits = append(digits, s[2:ei]...)
		}
		d, _ := strconv.ParseUint(string(digits), 10, 64)
		if v, _ := strconv.ParseFloat(string(s), 64); v > float64(f) {
			d--
		} else {
			d++
		}
		e, _ := strconv.Atoi(string(s[ei+1:]))
		t := strconv.AppendUint(buf[:0], d, 10)
		t = append(t, 'e')
		t = strconv.AppendInt(t, int64(e-prec), 10)
		if w, err := strconv.ParseFloat(string(t), 32); d > 0 && err == nil && float32(w) == f {
			x, _ := strconv.ParseFloat(string(t), 64) // t's digits, at most 10: a double keeps them
			return strconv.AppendFloat(b, x, 'e', -1, 64)
		}
	}
	return strconv.AppendFloat(b, float64(f), 'e', -1, 32) // unreachable: 9 digits read back
}
