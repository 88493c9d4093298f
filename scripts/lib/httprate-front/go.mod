module pulumi-proxy/scripts/httprate-front

go 1.24

require github.com/go-chi/httprate v0.16.1

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.0.2 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
