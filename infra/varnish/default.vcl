vcl 4.1;
# Pressroom's edge: Varnish in front of the site server (`pressroom serve site`). Every page is kept
# until a publish changes it; the worker then purges exactly those routes by surrogate key (the
# `Surrogate-Key` header the site server sends, as Fastly reads it), or everything by the site-wide
# key `all` (CDN_PURGE_URL=varnish://<this host>:<port>). docs/operations.md, "The edge", explains
# every rule below; tests/integration/edge-varnish.test.ts runs this file in a real varnishd.

import std;
import xkey;

# ---- What an operator edits: where the site server is, and who may purge. -----------------------
backend site {
    .host = "site-origin";
    .port = "4101";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 10s;
}

# The workers' network only (docker-compose.yml: the `purge` network). Visitors never reach the
# edge from it, so no visitor can empty the cache.
acl purgers {
    "172.31.255.0"/24;
}
# --------------------------------------------------------------------------------------------------

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        # A soft purge: the object is stale at once (the next request fetches the new page) but is
        # kept for its grace, so that a visitor still gets it while the site server is down.
        if (req.http.xkey-purge) {
            set req.http.n-gone = xkey.softpurge(req.http.xkey-purge);
            return (synth(200, "Purged " + req.http.n-gone));
        }
        return (synth(400, "No xkey-purge header"));
    }
    # The contact form's POST, and anything that is not a read, goes to the site server as it is.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Operational endpoints and the contact API are never cached.
    if (req.url ~ "^/(_pressroom|api)(/|$)") {
        return (pass);
    }
    # The site sets no cookie and reads none: a visitor's cookie must neither split nor bypass the cache.
    unset req.http.Cookie;
    unset req.http.Authorization;
    if (req.http.x-pressroom-stale-ok) {
        # Second pass after the site server failed: the last page, even if purged (stale-if-error).
        set req.grace = 86400s;
    } else {
        # A purged page is fetched again before anyone sees it: never stale while the origin answers.
        set req.grace = 0s;
    }
    return (hash);
}

sub vcl_backend_response {
    if (bereq.uncacheable) {
        return (deliver);
    }
    if (beresp.status >= 500) {
        # An error never replaces the last good page: the fetch is dropped (a visitor's request then
        # restarts and gets the stale copy, vcl_synth). Only when there is no copy at all does the
        # site server's own error page go out, uncached.
        if (bereq.is_bgfetch || !bereq.http.x-pressroom-stale-ok) {
            return (abandon);
        }
        set beresp.ttl = 0s;
        set beresp.grace = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # The surrogate keys the site server names (route, `404`, `all`) become xkey's keys.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
        unset beresp.http.Surrogate-Key;
    }
    # One object per URL whatever the visitor's Accept-Encoding: Varnish asks the site server for
    # gzip and unzips for the few clients that do not take it (with http_gzip_support on, its
    # default, Varnish already ignores Vary: Accept-Encoding when matching an object). The header
    # is dropped so that no cache behind the edge splits the page by encoding either.
    if (beresp.http.Vary) {
        set beresp.http.Vary = regsuball(beresp.http.Vary, "(?i)(^|,)\s*accept-encoding\s*(?=,|$)", "");
        set beresp.http.Vary = regsub(beresp.http.Vary, "^\s*,\s*", "");
        if (beresp.http.Vary == "") {
            unset beresp.http.Vary;
        }
    }
    # The TTL is the page's s-maxage (Varnish reads it before max-age); stale-if-error is how long
    # a purged or expired page may still be served while the site server fails.
    if (beresp.http.Cache-Control ~ "stale-if-error=[0-9]+") {
        set beresp.grace = std.duration(
            regsub(beresp.http.Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1s"), 0s);
    } else {
        set beresp.grace = 0s;
    }
    return (deliver);
}

sub vcl_backend_error {
    # The site server is down or timed out: nothing is cached, the visitor's pass restarts.
    return (abandon);
}

sub vcl_deliver {
    if (resp.status >= 500 && !req.http.x-pressroom-stale-ok && (req.method == "GET" || req.method == "HEAD")) {
        set req.http.x-pressroom-stale-ok = "1";
        return (restart);
    }
    if (req.http.x-pressroom-stale-ok && obj.hits > 0) {
        set resp.http.X-Cache = "stale";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "hit";
    } else {
        set resp.http.X-Cache = "miss";
    }
    unset resp.http.xkey;
    # s-maxage and stale-if-error are this edge's: browsers, and any cache behind the edge, revalidate.
    if (resp.http.Cache-Control ~ "s-maxage") {
        set resp.http.Cache-Control = "public, max-age=0, must-revalidate";
    }
    if (resp.http.Content-Encoding == "gzip") {
        set resp.http.Vary = "Accept-Encoding";
    }
}

sub vcl_synth {
    if (resp.status == 503 && !req.http.x-pressroom-stale-ok && (req.method == "GET" || req.method == "HEAD")) {
        set req.http.x-pressroom-stale-ok = "1";
        return (restart);
    }
    set resp.http.Cache-Control = "no-store";
    if (resp.status == 503) {
        set resp.http.Retry-After = "30";
        set resp.http.Content-Type = "text/html; charset=utf-8";
        # The site's built-in fallback page, its stylesheet inlined (edge-error-page.ts; a test keeps them equal).
        synthetic({"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>This site is briefly unavailable</title><style>html{background:#fffaf2;color:#0e2236;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center}
.fallback{max-width:36rem;margin:2rem;padding:2.5rem;background:#f4e9d8;border-radius:1rem;box-shadow:inset 0 .5rem 0 #e76f51}
@media (max-width:30rem){.fallback{margin:1rem;padding:2rem 1.25rem}}
.fallback h1{color:#16324f;font-size:1.75rem;line-height:1.2;margin:.25rem 0 1rem}
.fallback__status{margin:0;color:#1a6b61;font-weight:700;letter-spacing:.08em;text-transform:uppercase;font-size:.85rem}
.error-page__reference{color:#4a5868}
.fallback__home{display:inline-block;margin-top:.5rem;padding:.7rem 1.3rem;border-radius:999px;background:#c2492b;color:#fff;font-weight:600;text-decoration:none}
.fallback__home:hover,.fallback__home:focus-visible{background:#a33b20}
.fallback__home:focus-visible{outline:3px solid #16324f;outline-offset:3px}</style></head><body><main class="fallback" id="main"><p class="fallback__status">Error 503</p><h1>This site is briefly unavailable</h1><p>The site cannot be reached right now, most likely for a minute or two. Please try again shortly.</p><p data-fallback-message="">Unfortunately an error occurred and while showing the error page another error occurred.</p><p><a class="fallback__home" href="/">Go back to home</a></p></main></body></html>"});
        return (deliver);
    }
    set resp.http.Content-Type = "text/plain; charset=utf-8";
    synthetic(resp.reason + {"
"});
    return (deliver);
}
