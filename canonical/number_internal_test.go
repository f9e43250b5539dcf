package canonical

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestScanNumberCopy checks the copy decision of scanNumber against the
// full conversion on long decimals, where the exact shortest-form test
// (shortestDecimal) decides: whenever the text is copied it must be what
// the conversion prints, and for the shortest forms of ordinary doubles
// the test must say so (else the fast path is dead).
func TestScanNumberCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	rounds := 200000
	if testing.Short() {
		rounds = 20000
	}
	for range rounds {
		var f float64
		switch rng.IntN(4) {
		case 0:
			f = rng.Float64()
		case 1:
			f = float64(rng.Uint32()) / (1 << 32)
		case 2:
			f = rng.Float64() * math.Pow10(rng.IntN(22)-6)
		default:
			f = math.Float64frombits(rng.Uint64() &^ (1 << 63)) // any magnitude
		}
		if rng.IntN(2) == 0 {
			f = -f
		}
		s := strconv.FormatFloat(f, 'f', -1, 64)
		texts = append(texts, s)
		// Near misses: one more digit, the last digit moved, a digit less.
		texts = append(texts, s+strconv.Itoa(rng.IntN(10)))
		if n := len(s); n > 2 && s[n-1] >= '1' && s[n-1] <= '8' {
			texts = append(texts, s[:n-1]+string(s[n-1]+1), s[:n-1]+string(s[n-1]-1), s[:n-1])
		}
		texts = append(texts, strconv.FormatFloat(f, 'f', 16, 64), strconv.FormatFloat(f, 'f', 18, 64))
	}
	for _, n := range []string{"9007199254740992", "9007199254740993", "1234567890123456.7", "0.1000000000000000055511151231257827",
		"0.30000000000000004", "0.3000000000000000444", "2251799813685248.5", "4503599627370497.5", "0.000001234567890123456"} {
		texts = append(texts, n)
	}
	copied, shortest := 0, 0
	for _, s := range texts {
		data := []byte(s)
		end, copyEnd, ok := scanNumber(data, 0)
		if !ok || end != len(data) {
			continue // 'f' formatting of huge values is still a valid literal; skip anything else
		}
		want := string(appendNumberText(nil, data))
		if copyEnd > 0 {
			copied++
			if got := s[:copyEnd]; got != want {
				t.Fatalf("scanNumber copies %q as %q; JavaScript prints %q", s, got, want)
			}
		}
		if want == s && len(s) > 17 && len(s) < 22 && s[0] == '0' && s != "0" {
			shortest++
			if copyEnd == 0 {
				t.Errorf("shortest form %q not recognised as canonical", s)
			}
		}
	}
	t.Logf("%d texts, %d copied, %d shortest 0.x forms checked", len(texts), copied, shortest)
	if copied < len(texts)/4 || shortest < 1000 {
		t.Fatalf("only %d of %d copied, %d shortest checked", copied, len(texts), shortest)
	}
}

// TestSkipDigits puts every byte value at every position after a run of
// digits, with anything after it, and checks where the run ends.
func TestSkipDigits(t *testing.T) {
	for pos := range 12 {
		for c := range 256 {
			for _, after := range []byte{'5', 0xff, 0x00, '/'} {
				data := make([]byte, 20)
				for i := range data {
					data[i] = '7'
				}
				data[pos] = byte(c)
				for i := pos + 1; i < len(data); i++ {
					data[i] = after
				}
				want := pos
				if c >= '0' && c <= '9' {
					want = len(data)
					if after < '0' || after > '9' {
						want = pos + 1
					}
				}
				if got := skipDigits(data, 0); got != want {
					t.Fatalf("skipDigits(%q) = %d, want %d", data, got, want)
				}
			}
		}
	}
}

// FuzzScanNumber checks, for any number literal, that whenever scanNumber
// decides to copy (part of) the text, that is exactly what the full
// conversion prints, and that the document pass prints the same.
func FuzzScanNumber(f *testing.F) {
	for _, s := range []string{"0.17357419803738594", "0.8503896181937307", "123456789012345678", "9007199254740993",
		"-0.000001234567890123456", "1.5e300", "0.30000000000000004", "4503599627370497.5", "1234567890.1234567",
		"-0.8503896181937307", "12.345678901234567", "0.0000012345678901234567", "0.1000000000000000055511151231257827",
		"9007199254740993.5", "0.12345678901234567", "1.0000000000000002", "1e5", "0.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if len(data) == 0 || (data[0] != '-' && (data[0] < '0' || data[0] > '9')) {
			return
		}
		end, copyEnd, ok := scanNumber(data, 0)
		if !ok || end != len(data) {
			return
		}
		want := string(appendNumberText(nil, data))
		if copyEnd > 0 && s[:copyEnd] != want {
			t.Fatalf("scanNumber copies %q as %q; JavaScript prints %q", s, s[:copyEnd], want)
		}
		// The document pass, whose inline checks come first, prints the
		// same.
		if got, err := StringifyJSON([]byte("[" + s + "]")); err != nil || got != "["+want+"]" {
			t.Fatalf("StringifyJSON([%s]) = %s, %v; want [%s]", s, got, err, want)
		}
	})
}

// TestLongDecimalsInline: decimals of 16 to 19 significant digits, shortest
// forms of their doubles and not, go through the document pass's inline
// check; each must print as the reference conversion prints it.
func TestLongDecimalsInline(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		x := (r.Float64() + 0x1p-60) * math.Pow10(r.IntN(12)-6) // never 0: its digit count is used
		for _, s := range []string{
			strconv.FormatFloat(x, 'f', -1, 64),                                            // shortest
			strconv.FormatFloat(x, 'f', 17+r.IntN(3)-int(math.Floor(math.Log10(x)))-1, 64), // 17-19 digits, mostly not shortest
		} {
			want := "[" + string(appendNumberText(nil, []byte(s))) + "]"
			got, err := StringifyJSON([]byte("[" + s + "]"))
			if err != nil || got != want {
				t.Fatalf("StringifyJSON([%s]) = %s, %v; want %s", s, got, err, want)
			}
		}
	}
}

// appendNumberText is the reference conversion: the text's double, printed.
func appendNumberText(dst, text []byte) []byte {
	f, _ := strconv.ParseFloat(string(text), 64)
	return appendNumber(dst, f)
}
