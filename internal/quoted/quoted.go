package quoted

import "bytes"

// End returns the index of the quote that closes the string opened at
// data[open] (by the same quote byte, a double or a single quote), or len(data) when the
// string is not closed. A quote preceded by an odd run of backslashes is
// escaped (each backslash escapes the next byte).
func End(data []byte, open int) int {
	q := data[open]
	for i := open + 1; ; {
		k := bytes.IndexByte(data[i:], q)
		if k < 0 {
			return len(data)
		}
		end := i + k
		run := 0
		for j := end - 1; j > open && data[j] == '\\'; j-- {
			run++
		}
		if run%2 == 0 {
			return end
		}
		i = end + 1
	}
}
