package canonical

import (
	"errors"
	"math"
	"syscall"
	"testing"
)

// Members record their output offsets in 32 bits, so canonical text that
// would reach 4 GiB is refused with ErrLimit, not wrapped around. The text
// before the document (dst) counts: it is made 4 GiB long cheaply, from
// memory mapped but never touched.
func TestCanonicalTextOver4GiBIsALimit(t *testing.T) {
	mem, err := syscall.Mmap(-1, 0, math.MaxUint32+1<<20, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatalf("mapping 4 GiB of address space: %v", err)
	}
	defer syscall.Munmap(mem)
	for _, tt := range []struct {
		name, doc string
		lead      int // bytes of dst before the document
		wantErr   bool
	}{
		{"below the limit", `{"b":1,"a":2}`, math.MaxUint32 - 64, false},
		{"an object closing past it", `{"b":1,"a":2}`, math.MaxUint32 - 8, true},
		{"an inner object closing past it", `[{"b":1,"a":2}]`, math.MaxUint32 - 4, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &state{}
			out, err := st.canon(mem[:tt.lead], []byte(tt.doc), MaxDepth)
			if tt.wantErr {
				if !errors.Is(err, ErrLimit) || len(out) != tt.lead {
					t.Fatalf("err = %v, output %d bytes; want ErrLimit and dst as it was", err, len(out)-tt.lead)
				}
				return
			}
			if err != nil || string(out[tt.lead:]) != `{"a":2,"b":1}` {
				t.Fatalf("got %q, %v", out[tt.lead:], err)
			}
		})
	}
}
