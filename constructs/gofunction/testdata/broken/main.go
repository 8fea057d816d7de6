// Command broken does not compile: the gofunction tests check that the
// compiler's message reaches the developer.
package main

func main() {
	var n int = "not a number"
	_ = n
}
