package canonical

import (
	"math"
	"strconv"
)

// maxSafeInteger is 2^53: below it every integer is a double printed exactly.
const maxSafeInteger = 1 << 53

// appendNumber appends f as JavaScript's Number.prototype.toString (and so
// JSON.stringify) prints it; NaN and ±Infinity print null, -0 prints 0.
func appendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	if f == math.Trunc(f) && f > -maxSafeInteger && f < maxSafeInteger {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits, as in ECMA-262 Number::toString step 5.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	var digits [24]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp := 0
	neg := e[i+1] == '-'
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	n := exp + 1 // the decimal point sits after n digits
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for j := k; j < n; j++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for j := n; j < 0; j++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 < 0 {
			dst = append(dst, '-')
		} else {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(abs(n-1)), 10)
	}
	return dst
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// scanNumber validates the JSON number starting at data[i] and returns the
// index just past it. When copyEnd > 0, data[i:copyEnd] is already what
// JavaScript prints for the value and can be copied as is: the literal
// without trailing fraction zeros (and a bare '.'), provided it has no
// exponent, at most 15 significant digits (so it is exactly the shortest
// round-trip form of its double), is not negative zero, and is not below
// 1e-6 (where JavaScript switches to exponent form).
func scanNumber(data []byte, i int) (end, copyEnd int, ok bool) {
	n := len(data)
	neg := false
	if data[i] == '-' {
		neg = true
		i++
		if i >= n {
			return i, 0, false
		}
	}
	canonical := true
	sig := 0
	zeroInt := false
	switch c := data[i]; {
	case c == '0':
		zeroInt = true
		i++
	case c >= '1' && c <= '9':
		s := i
		i++
		for i < n && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		sig = i - s
	default:
		return i, 0, false
	}
	copyEnd = i
	if i < n && data[i] == '.' {
		i++
		s := i
		for i < n && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == s {
			return i, 0, false
		}
		t := i // trim trailing zeros
		for t > s && data[t-1] == '0' {
			t--
		}
		if t > s {
			copyEnd = t
		} // else: the fraction is all zeros and the copy stops before '.'
		if zeroInt {
			lz := s
			for lz < t && data[lz] == '0' {
				lz++
			}
			if t > s && lz-s >= 6 {
				canonical = false // below 1e-6
			}
			sig = t - lz
			if t == s && neg {
				canonical = false // -0.000
			}
		} else {
			sig += t - s
		}
	} else if zeroInt && neg {
		canonical = false // -0
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		canonical = false
		i++
		if i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		s := i
		for i < n && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == s {
			return i, 0, false
		}
	}
	if sig > 15 || !canonical {
		copyEnd = 0
	}
	return i, copyEnd, true
}

// appendNumberText appends the canonical form of a validated JSON number.
func appendNumberText(dst, text []byte) []byte {
	// ParseFloat rounds correctly to nearest-even, as JavaScript does; on
	// overflow it returns ±Inf (printed null) with ErrRange, which is expected.
	f, _ := strconv.ParseFloat(string(text), 64)
	return appendNumber(dst, f)
}
