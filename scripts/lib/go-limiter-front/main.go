// Rate limiters of Go services in front of an API, each as its library's net/http middleware writes its answers, at
// most RATE requests per key (the Authorization header) a second. Run by scripts/lib/go-limiter-front.mjs:
// go-limiter-front KIND PORT UPSTREAM_PORT RATE, each decision printed as its status, a line each. KIND is
//
//   - httprate: go-chi/httprate, a sliding window counter (the previous window's count, weighted by what is left of the
//     current window, plus the current's), the refused not counted; X-RateLimit-Limit, -Remaining and -Reset (the
//     current window's end, a Unix time cut down to the second) on every answer, Retry-After (the window's length) on a
//     refusal;
//   - ulule: ulule/limiter's memory store, a window from the first request after the last one ended, every request
//     counted, refused or not; the same three headers (the window's end, cut down) on every answer, and a refusal with
//     no Retry-After.
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
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/middleware/stdlib"
	"github.com/ulule/limiter/v3/drivers/store/memory"
)

func main() {
	if len(os.Args) != 5 {
		log.Fatal("usage: go-limiter-front KIND PORT UPSTREAM_PORT RATE")
	}
	rate, err := strconv.Atoi(os.Args[4])
	if err != nil {
		log.Fatal(err)
	}
	upstream := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: "127.0.0.1:" + os.Args[3]})
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(200)
		upstream.ServeHTTP(w, r)
	})
	var limited http.Handler
	switch os.Args[1] {
	case "httprate":
		byKey := func(r *http.Request) (string, error) { return r.Header.Get("Authorization"), nil }
		refused := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
			fmt.Println(429)
			http.Error(w, http.StatusText(http.StatusTooManyRequests), http.StatusTooManyRequests)
		})
		limited = httprate.LimitBy(rate, time.Second, byKey, refused)(passed)
	case "ulule":
		perSecond := limiter.New(memory.NewStore(), limiter.Rate{Period: time.Second, Limit: int64(rate)})
		byKey := stdlib.WithKeyGetter(func(r *http.Request) string { return r.Header.Get("Authorization") })
		refused := stdlib.WithLimitReachedHandler(func(w http.ResponseWriter, r *http.Request) {
			fmt.Println(429)
			stdlib.DefaultLimitReachedHandler(w, r)
		})
		limited = stdlib.NewMiddleware(perSecond, byKey, refused).Handler(passed)
	default:
		log.Fatalf("unknown limiter %q: httprate or ulule", os.Args[1])
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[2], limited))
}
