# The first H200 call of session 14 (docs/NOTES.md, "Next on the H200 (after
# session 13)"): the GPU tier on the k3v3 ring (6-byte value slices read
# from the ring, ring-eligible now: 3-stage plans of k3v3 at head_dim 128
# and k3v4 at 64 in the tier take it), a k3v3 re-tune (its 3-stage
# candidates now take the ring) merged into the shipped database, then the
# decode bench of every preset on it (issue 6/9 items 2 and 3: the last
# every-preset table is session 10's). ~9.5 min.
# Before the call, on the build machine: pack tqc (scripts/pack-tqc-for-gpu.sh
# build .carry/tqc-gpu.tar.xz), move bench/results out of the tree (mv
# bench/results /tmp/hold && mkdir bench/results; back afterwards), copy
# this file to .carry/call1.sh; carry .carry/tqc-gpu.tar.xz,
# .carry/googletest.tgz (googletest without docs/samples/tests, tar cJf)
# and .carry/call1.sh.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G tier 2>&1 | tail -3 | tee $OUT/tier.txt
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
timeout 120 $tqc autotune --arch native --preset k3v3 --buckets 1,8,32,64 \
  -o /tmp/ge/db-k3v3.json --report /tmp/ge/tune-k3v3 > /tmp/ge/tune-k3v3.txt 2>&1
tail -6 /tmp/ge/tune-k3v3.txt | tee $OUT/tune-k3v3.txt
python3 - <<'PY'
import json
d = json.load(open("autotune/databases/nvidia-h200-sm_90.json"))
n = json.load(open("/tmp/ge/db-k3v3.json"))["entries"]
d["entries"] = [e for e in d["entries"] if e["preset"] != "k3v3"] + n
json.dump(d, open("/tmp/ge/db-merged.json", "w"), indent=1)
PY
cp /tmp/ge/db-merged.json autotune/databases/nvidia-h200-sm_90.json
DECODE_PRESETS="k3v4 k4v4 k8v4 k3v3 k4v2 k2v2 bf16" timeout 270 $G decode 2>&1 | tail -2
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
