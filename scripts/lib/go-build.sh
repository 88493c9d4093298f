# Shared by the scripts that build Go programs from modules (ensure-pulumi, ensure-language-hosts, gen-sdk/run,
# ensure-proxies, go-limiter-front.mjs).
# Settings that hold on these machines (docs/contributing/pulumi-cli.md): no cgo, module mode, the local toolchain only, and no
# checksum-database lookup for pkg/v3 (the database has no entry for the versions used; go.sum still pins them).
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
export GONOSUMDB="github.com/pulumi/pulumi/pkg/v3${GONOSUMDB:+,$GONOSUMDB}"
# Go's own installer puts it in /usr/local/go; a non-login shell (such as CI's) may not have that on PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
GO_LDFLAGS="-s -w"

# build_in_wrapper WORK_DIR GOMOD_BODY PACKAGE OUTPUT: a throwaway module in WORK_DIR that requires PACKAGE's module,
# then go build (no `go get`: it probes sub-paths of the package as modules, which the proxy refuses). The binary is
# written to OUTPUT.tmp; the caller renames it when everything it builds is done.
build_in_wrapper() {
  local work=$1 body=$2 package=$3 output=$4
  rm -rf "$work" && mkdir -p "$work"
  printf 'module pulumi-proxy/build-%s\n\ngo 1.24\n\n%s\n' "$(basename "$work")" "$body" >"$work/go.mod"
  (
    cd "$work"
    go mod download >"$work/download.log" 2>&1 || { tail -n 30 "$work/download.log" >&2; exit 1; }
    go build -trimpath -tags osusergo,grpcnotrace -ldflags "$GO_LDFLAGS" -o "$output.tmp" "$package"
  )
}

# build_cached SOURCES NAME CACHE_ROOT: the Go program in SOURCES (its go.mod, go.sum and .go files), built once into
# CACHE_ROOT/NAME-<hash of those files>/NAME, from a copy (module mode may tidy go.mod and go.sum, which stay as the
# repository has them). Prints the binary's path; progress goes to stderr.
build_cached() {
  local sources=$1 name=$2 cache_root=$3
  local hash dir
  hash=$(cat "$sources/go.mod" "$sources/go.sum" "$sources"/*.go | sha256sum | cut -c1-12)
  dir="$cache_root/$name-$hash"
  if ! [ -x "$dir/$name" ]; then
    echo "building $name ($sources) into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir/src"
    cp "$sources/go.mod" "$sources/go.sum" "$sources"/*.go "$dir/src/"
    (cd "$dir/src" && go build -trimpath -ldflags "$GO_LDFLAGS" -o "$dir/$name.tmp" . >&2)
    mv "$dir/$name.tmp" "$dir/$name"
  fi
  echo "$dir/$name"
}
