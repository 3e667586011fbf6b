module github.com/layer0/anth

go 1.25.0

require github.com/google/go-cmp v0.7.0

require pgregory.net/rapid v1.3.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/prometheus/client_golang v1.24.1
	github.com/prometheus/client_model v0.6.2
	github.com/prometheus/common v0.70.1
	github.com/redis/rueidis v1.0.79
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/procfs v0.21.1 // indirect
	golang.org/x/sys v0.47.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

require (
	golang.org/x/net v0.58.0
	golang.org/x/text v0.41.0 // indirect
)
