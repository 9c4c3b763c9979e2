# Sourced by the forecast's shell tests (forecast_cli.sh, forecast_data.sh), which set $nanotrn and $work and define
# fail(). refuses WHAT PATTERN ARGS...: `nanotrn forecast ARGS` fails, says PATTERN, and leaves no folder at $work/r
# (the --out every refusal names): a request that cannot be forecast leaves nothing behind.
refuses() {
  local what=$1 pattern=$2
  shift 2
  if "$nanotrn" forecast "$@" > "$work/refused.txt" 2>&1; then fail "$what: accepted"; fi
  grep -q -- "$pattern" "$work/refused.txt" || { cat "$work/refused.txt"; fail "$what: no '$pattern'"; }
  [ ! -e "$work/r" ] || fail "$what: left $work/r behind"
  echo "refused ($what): $(grep -m1 -i -E 'error|must|not|run with' "$work/refused.txt")"
}
