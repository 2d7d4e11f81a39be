#!/usr/bin/env bash
# npm run model [-- --ci]: checks model/strata.pml with Spin — the real protocol must hold every assertion,
# and each mutant must be refuted with a counterexample trail (written to model/out/<mutant>.trail.txt).
# --ci gives the three-writer bit-state searches 2^24 bits instead of 2^28 (20 s each instead of about
# 6 min; fewer states covered, the count printed). Installs nothing: without spin (and a C compiler) it
# says how to get them and exits 2.
set -euo pipefail
cd "$(dirname "$0")"
bits=28
if [ "${1:-}" = --ci ]; then bits=24; fi
for tool in spin gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "model: $tool is not installed. On Debian or Ubuntu: apt-get install spin gcc (Spin 6.5: https://spinroot.com)" >&2
    exit 2
  fi
done
out=out
rm -rf "$out" && mkdir -p "$out"
failed=0

# The model checked (strata.pml unless MODEL says otherwise: turns.pml).
model=${MODEL:-strata.pml}

# Builds the verifier for the given -D flags into $out/$1.
build() {
  local name=$1; shift
  # A copy beside the verifier: pan names its trail after the model, and spin -t looks for it beside the model.
  (cd "$out" && mkdir -p "$name" && cd "$name" && cp "../../$model" . && spin -a "$@" "$model" >/dev/null && gcc -O2 -w -DSAFETY -DNOFAIR ${CFLAGS_EXTRA:-} -o pan pan.c)
}

# The real protocol: exhaustive where the state space fits, bit-state hashing (with its coverage) where not.
real() {
  local name=$1 mode=$2; shift 2
  local flags="" args="-m100000"
  if [ "$mode" = exhaustive ]; then flags="-DCOLLAPSE -DMEMLIM=6000"; else flags="-DBITSTATE"; args="-m100000 -w$bits"; fi
  CFLAGS_EXTRA=$flags build "$name" "$@"
  local started=$SECONDS result
  result=$(cd "$out/$name" && ./pan $args 2>&1 || true)
  local states errors factor
  states=$(echo "$result" | awk '/states, stored/ {printf "%d", $1}')
  errors=$(echo "$result" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
  factor=$(echo "$result" | sed -n 's/.*hash factor: \([0-9.e+]*\).*/\1/p')
  echo "$result" >"$out/$name.txt"
  printf '%-34s %-10s %12s states  %4ss  errors %s%s\n' "$name" "$mode" "$states" "$((SECONDS - started))" "$errors" "${factor:+  hash factor $factor}"
  if [ "$errors" != 0 ] || echo "$result" | grep -q "error: max search depth too small"; then failed=1; fi
  # An exhaustive search cut short by its memory bound has not shown anything.
  if [ "$mode" = exhaustive ] && echo "$result" | grep -q "Search not completed"; then echo "  $name: search not completed" >&2; failed=1; fi
}

# A mutant: randomised bit-state runs (swarm), seed after seed, until one finds the violation.
mutant() {
  local name=$1; shift
  CFLAGS_EXTRA="-DBITSTATE -DT_RAND -DP_RAND" build "$name" "$@"
  local started=$SECONDS seed result
  for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
    result=$(cd "$out/$name" && timeout 60 ./pan -m100000 -w26 -RS$seed 2>&1 || true)
    # Refuted by a property: an assertion, not some other error (an invalid end state, a depth overflow).
    if echo "$result" | grep -q "assertion violated"; then
      (cd "$out/$name" && spin -t -p -g "$@" "$model" >"../$name.trail.txt" 2>&1 || true)
      printf '%-34s refuted, seed %s, %ss: %s\n' "$name" "$seed" "$((SECONDS - started))" "$(echo "$result" | grep -m1 'assertion violated' | sed 's/^pan:1: //')"
      return
    fi
  done
  printf '%-34s NOT refuted in %ss\n' "$name" "$((SECONDS - started))"
  failed=1
}

echo "the protocol (3 writers unless said, 2 readers, GC, clock):"
real objects-1-writer exhaustive -DWRITERS=1
real segments-1-writer exhaustive -DWRITERS=1 -DSEGMENTS
real objects-3-writers bitstate
real segments-3-writers bitstate -DSEGMENTS
echo "mutants, each must be refuted:"
mutant ignore-leases -DWRITERS=2 -DMUTANT_IGNORE_LEASES
mutant no-conflict-check -DMUTANT_NO_CONFLICT
mutant no-grace -DWRITERS=2 -DMUTANT_NO_GRACE
mutant new-ids-on-rebase -DMUTANT_NEW_IDS
mutant no-fencing -DMUTANT_NO_FENCE
mutant no-read-check -DMUTANT_NO_READ_CHECK
echo "turns (turns.pml, decision 0060: P8, a writer in line lands before BOUND of the others' entries):"
model=turns.pml
real turns-segments-3-writers exhaustive -DWRITERS=3 -DCOMMITS=3
real turns-objects-3-writers bitstate -DOBJECTS -DWRITERS=3 -DCOMMITS=3
real turns-objects-look-every-4 exhaustive -DOBJECTS -DCHECK_EVERY=4 -DCOMMITS=7
mutant no-line -DWRITERS=3 -DCOMMITS=4 -DMUTANT_NO_LINE
mutant no-line-objects -DOBJECTS -DMUTANT_NO_LINE
exit $failed
