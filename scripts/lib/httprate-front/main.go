// go-chi/httprate in front of an API: a sliding window counter (the previous window's count, weighted by what is left
// of the current window, plus the current's) of at most RATE requests per key (the Authorization header) a second, the
// refused not counted; X-RateLimit-Limit, -Remaining and -Reset (the current window's end, a Unix time) on every answer,
// and Retry-After (the window's length) on a refusal, as the library writes them. Run by scripts/lib/httprate-front.mjs:
// httprate-front PORT UPSTREAM_PORT RATE. Each decision is printed as its status, a line each.
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/go-chi/httprate"
)

func main() {
	if len(os.Args) != 4 {
		log.Fatal("usage: httprate-front PORT UPSTREAM_PORT RATE")
	}
	rate, err := strconv.Atoi(os.Args[3])
	if err != nil {
		log.Fatal(err)
	}
	upstream := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: "127.0.0.1:" + os.Args[2]})
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(200)
		upstream.ServeHTTP(w, r)
	})
	byKey := func(r *http.Request) (string, error) { return r.Header.Get("Authorization"), nil }
	refused := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(429)
		http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
	})
	limited := httprate.LimitBy(rate, time.Second, byKey, refused)(passed)
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], limited))
}
