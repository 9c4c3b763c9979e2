#!/usr/bin/env bash
# Self-test for chromium_render.py: proves the renderer's verdicts can fail.
# Four hand-written pages, each with a known verdict:
#   good     two drawn plots, no errors, no network      -> exit 0
#   network  + <img src="http://example.invalid/x.png">  -> exit 1, names the URL
#   console  + console.error("boom")                     -> exit 1, mentions boom
#   blank    one empty svg.plot "empty" on a white page  -> exit 1, names "empty"
# Usage: bash tests/report/chromium_selftest.sh [path/to/chromium_render.py]
# Needs /usr/bin/chromium (or $CHROMIUM); never needs the network.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
render="${1:-$here/chromium_render.py}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/chromium_selftest.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

plots='<h1>Self-test report</h1>
<svg class="plot" data-plot="a" width="400" height="200">
 <line x1="40" y1="170" x2="390" y2="170" stroke="#000"/>
 <line x1="40" y1="10" x2="40" y2="170" stroke="#000"/>
 <polyline class="series" fill="none" stroke="#1f77b4" stroke-width="2" points="40,20 120,90 250,130 390,150"/>
 <text x="200" y="192" font-size="12">step</text><text x="2" y="20" font-size="12">loss</text>
</svg>
<svg class="plot" data-plot="b" width="400" height="200">
 <line x1="40" y1="170" x2="390" y2="170" stroke="#000"/>
 <line x1="40" y1="10" x2="40" y2="170" stroke="#000"/>
 <polyline class="series" fill="none" stroke="#d62728" stroke-width="2" points="40,160 200,60 390,30"/>
 <text x="180" y="192" font-size="12">seconds</text><text x="2" y="20" font-size="12">tok/s</text>
</svg>'

page() {  # page NAME EXTRA_BODY [plot names]
  printf '<!doctype html>\n<html><head><meta charset="utf-8"><title>%s</title></head>\n<body style="background:#fff">\n%s\n%s\n</body></html>\n' \
    "$1" "${3-$plots}" "$2" >"$tmp/$1.html"
}
page good ''
page network '<img src="http://example.invalid/x.png" alt="x">'
page console '<script>console.error("boom")</script>'
page blank '' '<svg class="plot" data-plot="empty" width="400" height="200"></svg>'

passed=0
check() {  # check CASE WANT_RC [STDERR_MUST_CONTAIN]
  local name="$1" want="$2" needle="${3-}" rc start
  start=$(date +%s.%N)
  /usr/bin/python3 "$render" --html "$tmp/$name.html" --png "$tmp/$name.png" \
    --chromium "$chromium" --timeout 90 >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  local secs; secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  if [ "$rc" != "$want" ]; then
    echo "selftest: $name FAILED: exit $rc, expected $want (${secs}s)"
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -40
    sed 's/^/  stdout: /' "$tmp/$name.out" | head -40
    return
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$tmp/$name.err"; then
    echo "selftest: $name FAILED: stderr does not mention '$needle'"
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -40
    return
  fi
  if [ "$want" = 0 ] && [ ! -s "$tmp/$name.png" ]; then
    echo "selftest: $name FAILED: no screenshot written"
    return
  fi
  echo "selftest: $name ok (exit $rc, ${secs}s)"
  passed=$((passed + 1))
}

check good 0
check network 1 'http://example.invalid/x.png'
check console 1 'boom'
check blank 1 '"empty"'

echo "chromium selftest: $passed/4 ok"
[ "$passed" = 4 ]
