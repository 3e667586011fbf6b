module github.com/layer0/anth

go 1.25.0

require github.com/google/go-cmp v0.7.0

require pgregory.net/rapid v1.3.0

require github.com/klauspost/compress v1.20.4

require (
	golang.org/x/net v0.58.0
	golang.org/x/text v0.41.0 // indirect
)
