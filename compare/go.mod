module github.com/layer0/anth/compare

go 1.25.0

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/klauspost/compress v1.20.4
	github.com/layer0/anth v0.0.0
)

require github.com/google/go-cmp v0.7.0 // indirect

replace github.com/layer0/anth => ../
