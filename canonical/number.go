package canonical

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

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
	if n := len(dst); dst[n-2] == '0' && (dst[n-3] == '+' || dst[n-3] == '-') {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst
}

// scanNumber validates the JSON number starting at data[i] and returns the
// index just past it. When keep > 0, data[i:keep] is what JavaScript
// prints for the value and can be copied as is; otherwise the number is
// converted.
func scanNumber(data []byte, i int) (end, keep int, ok bool) {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	d := j // the first digit
	switch {
	case j < len(data) && data[j] == '0':
		j++
	case j < len(data) && data[j] >= '1' && data[j] <= '9':
		if j = skipDigits(data, j+1); j-d <= 15 && (j == len(data) || data[j] != '.' && data[j]|0x20 != 'e') {
			return j, j, true // an integer printed as written, the common case
		}
	default:
		return j, 0, false
	}
	dot := j
	if j < len(data) && data[j] == '.' {
		if j = skipDigits(data, j+1); j == dot+1 {
			return j, 0, false
		}
	}
	if end = j; j < len(data) && data[j]|0x20 == 'e' {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		if end = skipDigits(data, j); end == j {
			return end, 0, false
		}
		return end, 0, true // JavaScript writes exponents only outside 1e-6..1e21, and its own way
	}
	if end > dot && end-d <= 16 && data[d] != '0' && data[end-1] != '0' {
		return end, end, true // a decimal of up to 15 digits and no zero to drop, also common
	}
	keep = end
	for keep > dot && data[keep-1] == '0' {
		keep-- // trailing fraction zeros
	}
	if keep == dot+1 {
		keep = dot // and a bare point
	}
	lead := d // the first significant digit
	for lead < keep && (data[lead] == '0' || data[lead] == '.') {
		lead++
	}
	digits := keep - lead
	if lead < dot && dot < keep {
		digits--
	}
	switch {
	case lead == keep: // zero: -0 prints 0
		if data[i] == '-' {
			keep = 0
		}
	case data[d] == '0' && lead-dot > 6: // below 1e-6: JavaScript writes an exponent
		keep = 0
	case digits <= 15:
		// Up to 15 significant digits a decimal is the shortest form of
		// its double.
	case digits > 19 || !shortestDecimal(data[lead:keep], max(keep-dot-1, 0)):
		keep = 0
	}
	return end, keep, true
}

// shortestDecimal reports whether JavaScript prints the double nearest
// t×10^-k, t being the 16 to 19 digits ds (a point aside, not ending in 0,
// the value at least 1e-6), as exactly these digits; false also stands for "not known", and the
// number is then converted. With x = m×2^-s that double, the digits are its
// printed form when
//
//  1. x is the double nearest t×10^-k, strictly;
//  2. t×10^-k is strictly the closest to x of the decimals with as many
//     digits (JavaScript picks the closest): within half a unit of the last
//     digit;
//  3. no decimal with fewer digits rounds to x: the nearest ones, t with its
//     last digit r zeroed and that plus ten units, lie strictly outside x's
//     rounding interval x ± 2^-s/2.
//
// Scaled by 10^k × 2^(s+1), with D = t×2^(s+1) - 2m×10^k, these read
// |D| < 10^k, |D| < 2^s, r×2^(s+1) - D > 10^k and (10-r)×2^(s+1) + D > 10^k,
// exact in 128-bit integers.
func shortestDecimal(ds []byte, k int) bool {
	t := uint64(0)
	for ; len(ds) >= 8; ds = ds[8:] { // eight digits at a time, up to the point
		x := binary.LittleEndian.Uint64(ds) - 0x3030303030303030
		if x&0x8080808080808080 != 0 {
			break // a point among them
		}
		x = (x*10 + x>>8) & 0x00ff00ff00ff00ff // pairs of digits
		x = (x*100 + x>>16) & 0x0000ffff0000ffff
		t = t*1e8 + (x*10000+x>>32)&0xffffffff
	}
	for _, c := range ds {
		if c != '.' {
			t = t*10 + uint64(c-'0')
		}
	}
	if k == 0 {
		return t <= 1<<53 // an integer, exact and printed in full
	}
	if k > 19 {
		return false
	}
	p := uint64(math.Pow10(k))                       // exact up to 10^22
	est := math.Float64bits(float64(t) / float64(p)) // within an ulp or two of x
	m, s := est&(1<<52-1)|1<<52, uint(1075-int(est>>52))
	if int(s) < 1 || int(s)+1+bits.Len64(t) > 120 {
		return false
	}
	a := shl(t, s+1)
	var d uint64 // |D|
	neg := false
	for try := 0; ; try++ {
		if m <= 1<<52 || m >= 1<<53-1 || try == 3 {
			return false // a binade's edge (an asymmetric interval), or a miss
		}
		bHi, bLo := bits.Mul64(2*m, p)
		dLo, borrow := bits.Sub64(a[1], bLo, 0)
		dHi, _ := bits.Sub64(a[0], bHi, borrow)
		if neg = dHi>>63 != 0; neg {
			dLo, borrow = bits.Sub64(0, dLo, 0)
			dHi, _ = bits.Sub64(0, dHi, borrow)
		}
		if d = dLo; dHi == 0 && d < p {
			break // condition 1
		}
		if neg {
			m--
		} else {
			m++
		}
	}
	if s < 64 && d >= 1<<s {
		return false // condition 2
	}
	// Condition 3: r×2^(s+1) > 10^k + D and (10-r)×2^(s+1) > 10^k - D.
	sumLo, sumHi := bits.Add64(p, d, 0)
	r := t % 10
	if neg { // with |D| for D, the two conditions trade places
		r = 10 - r
	}
	return greater(shl(r, s+1), [2]uint64{sumHi, sumLo}) && greater(shl(10-r, s+1), [2]uint64{0, p - d})
}

// shl returns x×2^n (0 < n < 128, no overflow) as two words, high first.
func shl(x uint64, n uint) [2]uint64 { return [2]uint64{x<<(n-64) | x>>(64-n), x << n} }

// greater compares two 128-bit integers given high word first.
func greater(a, b [2]uint64) bool { return a[0] > b[0] || a[0] == b[0] && a[1] > b[1] }

// skipDigits returns the index of the first byte at or after i that is not
// an ASCII digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i]-'0' <= 9 {
		i++
	}
	return i
}
