# Shared set-up of the benchmark scripts; `source` it after setting $bench.
#
#   say MESSAGE...           progress to stderr
#   need_gnu_time            /usr/bin/time, for peak RSS (apt-get if missing)
#   bench_venv PKG==VER...   a venv with these packages: $VENV_DIR, by
#                            default bench/.venv; sets $venv
#   parallels_bin            $PARALLELS_BIN, or the release binary built now;
#                            sets $bin

say() { printf '[bench] %s\n' "$*" >&2; }

apt_install() {
    apt-get install -y "$@" >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
}

need_gnu_time() {
    if [ ! -x /usr/bin/time ]; then
        say "installing GNU time"
        apt_install time
    fi
}

bench_venv() {
    venv=${VENV_DIR:-$bench/.venv}
    if [ ! -x "$venv/bin/python" ]; then
        say "creating $venv"
        python3 -m venv "$venv" 2>/dev/null || {
            rm -rf "$venv"
            apt_install python3-venv
            python3 -m venv "$venv"
        }
    fi
    local pkg
    for pkg in "$@"; do
        if ! "$venv/bin/pip" show -q "${pkg%%=*}" >/dev/null 2>&1; then
            say "installing $pkg into $venv"
            "$venv/bin/pip" install -q "$pkg"
        fi
    done
}

parallels_bin() {
    if [ -n "${PARALLELS_BIN:-}" ]; then
        bin=$PARALLELS_BIN
    else
        say "cargo build --release -p parallels-cli"
        cargo build --release -p parallels-cli >&2
        bin=${CARGO_TARGET_DIR:-$root/target}/release/parallels
    fi
    [ -x "$bin" ] || { say "no executable at $bin"; exit 1; }
}

# One timed run under GNU time: label, output path, command...; removes the
# output first, appends a row to $rows (label, wall s, CPU s, peak MiB,
# load at start, the last JSON line the command printed) and keeps the
# command's log beside the output. Needs $work (a scratch folder) and
# $rows; stops the script when the command fails.
timed() {
    local label=$1 out=$2
    shift 2
    local load e u s m
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$out"
    if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/log" 2>&1; then
        tail -20 "$work/log" >&2
        say "$label failed"
        exit 1
    fi
    read -r e u s m <"$work/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$e" "$(echo "$u + $s" | bc)" "$((m / 1024))" "$load" \
        "$(grep -h '^{' "$work/log" | tail -1)" >>"$rows"
    say "$label: $e s wall, $u + $s s CPU, $((m / 1024)) MiB, load $load"
    cp "$work/log" "$out.log" 2>/dev/null || true
}
