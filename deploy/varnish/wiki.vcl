# Varnish (Debian's varnish package, 7.x) in front of the wiki's gunicorn
# (bin/serve-production), with a shared cache for readers' pages. Give gunicorn's address
# below (GUNICORN_BIND), then, for example, in /etc/varnish/default.vcl or with
# varnishd -f /path/to/wiki.vcl. Varnish does not speak TLS: what terminates TLS in front of
# it sets X-Forwarded-Proto. tests/test_proxy.py runs this file as it is, with the backend's
# address replaced. The rules it follows are told in docs/operations.md ("A shared cache in
# front").
#
# What is kept is what the wiki says may be kept, for as long as it says: readers' pages
# (Cache-Control: public, max-age=0, s-maxage=1, stale-while-revalidate=1 by default),
# static files and media files. Varnish takes s-maxage as the time to keep a page and
# stale-while-revalidate as its grace: past s-maxage, a page is served while Varnish asks
# the wiki again in the background, for that long at most. Anything that does not say
# "public" is not kept, unlike Varnish's default, which keeps a response without
# Cache-Control for 120 seconds.
#
# An edit shows through this cache within s-maxage + stale-while-revalidate, plus one
# page's render: no ban on a new version of the wiki is sent, so none is relied on.
#
# Each page is kept twice, gzipped and not, as deploy/nginx/wiki.conf keeps it: Varnish on
# its own asks for gzip on every fetch and keeps only that copy, which it unzips again on
# every hit for a client that does not take gzip (curl, many bots); bench/README.md
# measures what that cost.

vcl 4.1;

backend wiki {
    .host = "127.0.0.1";
    .port = "8000";
}

sub vcl_recv {
    call vcl_req_host;
    call vcl_req_method;
    call vcl_req_authorization;
    # A request with the session cookie (SESSION_COOKIE_NAME, "sessionid") is a signed-in
    # user's, and one with the messages cookie has messages waiting: their pages are theirs
    # alone. Readers' pages say no "Vary: Cookie", so these requests go to the wiki and their
    # answers are never kept. Any other cookie is no reason to pass: readers' pages do not
    # depend on it.
    if (req.http.Cookie ~ "(^|;)\s*(sessionid|messages)=") {
        return (pass);
    }
    # Whether the client takes gzip, by nginx's rule: its copy of the page, and what the wiki
    # is asked for.
    if (req.http.Accept-Encoding ~ "(?i)\bgzip\b") {
        set req.http.X-Wiki-Encoding = "gzip";
    } else {
        set req.http.X-Wiki-Encoding = "identity";
    }
    return (hash);
}

sub vcl_hash {
    hash_data(req.http.X-Wiki-Encoding);
}

sub vcl_hit {
    if (obj.ttl >= 0s) {
        set req.http.X-Wiki-Cache = "HIT";
    } else {
        set req.http.X-Wiki-Cache = "STALE";
    }
}

sub vcl_miss {
    set req.http.X-Wiki-Cache = "MISS";
}

sub vcl_pass {
    set req.http.X-Wiki-Cache = "PASS";
}

sub vcl_backend_fetch {
    unset bereq.http.X-Wiki-Cache;
    # Varnish has replaced the client's Accept-Encoding by "gzip" for a fetch to keep; the
    # plain copy is asked for plain.
    if (bereq.http.X-Wiki-Encoding == "identity") {
        unset bereq.http.Accept-Encoding;
    }
    unset bereq.http.X-Wiki-Encoding;
}

sub vcl_backend_response {
    if (!bereq.uncacheable && beresp.http.Cache-Control !~ "(?i)(^|,)\s*public\s*(,|$)") {
        call vcl_beresp_hitmiss;
    }
    # Past its grace, a kept page is asked for again with its ETag (a 304 when unchanged).
    set beresp.keep = 1h;
}

sub vcl_deliver {
    # HIT, STALE (within grace, while the page is fetched again), MISS or PASS.
    set resp.http.X-Cache = req.http.X-Wiki-Cache;
}
