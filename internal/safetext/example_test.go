package safetext_test

import (
	"fmt"

	"github.com/ebbforge/adk/internal/safetext"
)

func ExampleString() {
	out := "ok\x00\xff\x1b[31mred\r\n"
	fmt.Printf("%q\n", safetext.String(out))
	// Output: "ok␀�␛[31mred\r\n"
}

func ExamplePrefix() {
	name := "echo\xc3" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	fmt.Println("Tool not found: " + safetext.Prefix(name, 16))
	// Output: Tool not found: echo�aaaaaaaaa…
}
