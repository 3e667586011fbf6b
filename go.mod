module github.com/layer0/anth

go 1.25

require github.com/google/go-cmp v0.7.0

require pgregory.net/rapid v1.3.0
