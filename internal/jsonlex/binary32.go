package jsonlex

import (
	"bytes"
	"math"
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
	kk := e + 1 // 10^(kk-1) ≤ f < 10^kk
	k := kk - n
	switch {
	case k >= 0 && kk <= 13:
		b = append(b, digits[:n]...)
		for range k {
			b = append(b, '0')
		}
		return append(b, ".0"...)
	case kk > 0 && kk <= 13:
		b = append(b, digits[:kk]...)
		b = append(b, '.')
		return append(b, digits[kk:n]...)
	case kk > -5 && kk <= 0:
		b = append(b, "0."...)
		for range -kk {
			b = append(b, '0')
		}
		return append(b, digits[:n]...)
	}
	b = append(b, digits[0])
	if n > 1 {
		b = append(b, '.')
		b = append(b, digits[1:n]...)
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
	v, err := strconv.ParseFloat(string(num), 32)
	if err != nil {
		return 0, false
	}
	var scratch [MaxBinary32]byte
	if string(AppendBinary32(scratch[:0], float32(v))) != string(num) {
		return 0, false
	}
	return float32(v), true
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
