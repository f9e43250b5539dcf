package canonical

import (
"strconv"
"testing"
)

var sinkB []byte

func BenchmarkLocalNumber(b *testing.B) {
	in := []byte("0.17357419803738594")
	var buf [64]byte
	for b.Loop() {
		sinkB = appendNumberText(buf[:0], in)
	}
}

func BenchmarkLocalParse(b *testing.B) {
	in := []byte("0.17357419803738594")
	for b.Loop() {
		f, _ := strconv.ParseFloat(string(in), 64)
		sinkF = f
	}
}

var sinkF float64

func BenchmarkLocalFormat(b *testing.B) {
	var buf [64]byte
	for b.Loop() {
		sinkB = strconv.AppendFloat(buf[:0], 0.17357419803738594, 'e', -1, 64)
	}
}
