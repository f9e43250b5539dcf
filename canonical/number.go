package canonical

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// maxSafeInteger is 2^53: below it every integer is a double printed exactly.
const maxSafeInteger = 1 << 53

// appendNumber appends f as JavaScript's Number.prototype.toString (and so
// JSON.stringify) prints it: the shortest digits that round-trip, in plain
// notation from 1e-6 up to 1e21 and in exponent form outside; NaN and
// ±Infinity print null, -0 prints 0.
func appendNumber(dst []byte, f float64) []byte {
	switch a := math.Abs(f); {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(dst, "null"...)
	case f == 0:
		return append(dst, '0')
	case a >= 1e-6 && a < 1e21:
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	// Go writes at least two exponent digits (1e-07), JavaScript no
	// leading zero (1e-7).
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if n := len(dst); dst[n-3] == '+' || dst[n-3] == '-' {
		if dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
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
	intStart := i
	switch c := data[i]; {
	case c == '0':
		zeroInt = true
		i++
	case c >= '1' && c <= '9':
		i = skipDigits(data, i+1)
		sig = i - intStart
	default:
		return i, 0, false
	}
	intEnd := i
	fracStart := i
	copyEnd = i
	if i < n && data[i] == '.' {
		s := i + 1
		i = skipDigits(data, s)
		if i == s {
			return i, 0, false
		}
		fracStart = s
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
	if !canonical {
		copyEnd = 0
	} else if sig > 15 {
		// The text is canonical when it is exactly the shortest
		// round-trip form of its double; frac is the fraction without
		// trailing zeros.
		var frac []byte
		if copyEnd > intEnd {
			frac = data[fracStart:copyEnd]
		}
		if zeroInt {
			intEnd = intStart
		}
		if !shortestDecimal(data[intStart:intEnd], frac, sig) {
			copyEnd = 0
		}
	}
	return i, copyEnd, true
}

// shortestDecimal reports, for a decimal literal whose digits are
// intDigits "." frac (frac without trailing zeros, possibly empty; the
// magnitude at least 1e-6) with sig significant digits, whether JavaScript
// prints its double as exactly these digits. false means "not known": the
// caller then converts the number the slow way.
//
// With t the digits as an integer and k = len(frac), the literal is
// t×10^-k. It is the printed form of its double x = M×2^-s when
//
//  1. x is the double nearest t×10^-k, strictly;
//  2. t×10^-k is strictly the closest to x of all decimals with sig digits
//     (JavaScript picks the closest), that is within half a unit of the
//     last digit;
//  3. no decimal with fewer digits rounds to x: the nearest such decimals
//     below and above are t with its last digit zeroed (lo) and lo+10 (in
//     units of the last digit), and both lie outside x's rounding interval,
//     x ± 2^-s/2 (strictly, so boundary ties never matter).
//
// Scaled by 10^k × 2^(s+1), with D = t×2^(s+1) - 2M×10^k and r = t mod 10,
// these read |D| < 10^k, |D| < 2^s, r×2^(s+1) - D > 10^k and
// (10-r)×2^(s+1) + D > 10^k, all exact in 128-bit integers.
func shortestDecimal(intDigits, frac []byte, sig int) bool {
	k := len(frac)
	if sig > 19 || k > 19 {
		return false
	}
	t := appendDigitValue(appendDigitValue(0, intDigits), frac)
	if k == 0 {
		return t <= maxSafeInteger // exact, printed with all its digits
	}
	// An estimate within an ulp or so of x; corrected below.
	est := math.Float64bits(float64(t) / math.Pow10(k))
	biased := int(est >> 52 & 0x7ff)
	m := est&(1<<52-1) | 1<<52
	s := 1075 - biased // est = m × 2^-s
	if biased == 0 || s < 1 || s+1+bits.Len64(t) > 120 {
		return false
	}
	p := uint64(math.Pow10(k)) // exact for k <= 19
	a := shl128(t, uint(s+1))
	var dNeg bool
	var d uint64 // |D|, once below 10^k
	for try := 0; ; try++ {
		if m <= 1<<52 || m >= 1<<53-1 || try == 3 {
			return false // binade edges (asymmetric interval) and misses: slow path
		}
		bhi, blo := bits.Mul64(2*m, p)
		b := u128{bhi, blo}
		if a.less(b) {
			diff := b.sub(a)
			if diff.hi == 0 && diff.lo < p {
				dNeg, d = true, diff.lo
				break
			}
			m--
		} else {
			diff := a.sub(b)
			if diff.hi == 0 && diff.lo < p {
				dNeg, d = false, diff.lo
				break
			}
			m++
		}
	}
	if s < 64 && d >= 1<<uint(s) {
		return false // another decimal with sig digits is closer to x
	}
	r := t % 10
	below := mul128(r, uint(s+1))    // r × 2^(s+1)
	above := mul128(10-r, uint(s+1)) // (10-r) × 2^(s+1)
	pd := u128{0, p}
	if dNeg {
		// lo: below + |D| > 10^k; hi: above > 10^k + |D|
		return pd.less(below.add(u128{0, d})) && pd.add(u128{0, d}).less(above)
	}
	// lo: below > 10^k + D; hi: above + D > 10^k
	return pd.add(u128{0, d}).less(below) && pd.less(above.add(u128{0, d}))
}

// appendDigitValue returns t followed by the decimal digits ds (at most 19
// in all), eight at a time.
func appendDigitValue(t uint64, ds []byte) uint64 {
	for len(ds) >= 8 {
		t = t*100000000 + eightDigits(binary.LittleEndian.Uint64(ds))
		ds = ds[8:]
	}
	for _, c := range ds {
		t = t*10 + uint64(c-'0')
	}
	return t
}

// eightDigits returns the value of eight ASCII digits read little-endian:
// adjacent digits, then pairs, then quads are combined by multiplication,
// each step's partial values fitting in its lanes.
func eightDigits(x uint64) uint64 {
	x -= '0' * lanes01
	x = x*10 + x>>8 // each even byte: two digits' value (0-99)
	const mask = 0x000000ff000000ff
	return ((x&mask)*(100+1000000<<32) + (x>>16&mask)*(1+10000<<32)) >> 32
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

// shl128 returns x << n for n < 128.
func shl128(x uint64, n uint) u128 {
	if n >= 64 {
		return u128{x << (n - 64), 0}
	}
	if n == 0 {
		return u128{0, x}
	}
	return u128{x >> (64 - n), x << n}
}

// mul128 returns x × 2^n; x < 16 and n < 120 keep it in range.
func mul128(x uint64, n uint) u128 { return shl128(x, n) }

func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return u128{a.hi + b.hi + c, lo}
}

func (a u128) sub(b u128) u128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	return u128{a.hi - b.hi - c, lo}
}

// appendNumberText appends the canonical form of a validated JSON number.
func appendNumberText(dst, text []byte) []byte {
	// ParseFloat rounds correctly to nearest-even, as JavaScript does; on
	// overflow it returns ±Inf (printed null) with ErrRange, which is expected.
	f, _ := strconv.ParseFloat(string(text), 64)
	return appendNumber(dst, f)
}

// skipDigits returns the index of the first byte at or after i that is not
// an ASCII digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}
