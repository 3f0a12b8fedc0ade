# Session 15's first H200 call (~6 min): (1) bench/bulk_region_bench.cu:
# do bulk copies of whole 16-token pages (one stream per CTA) read faster
# than each warp copying its head's 1888-byte region (the ring today)?
# (docs/NOTES.md, "Page size and the decode's bandwidth"); (2) the k3v3
# re-tune session 14's call 1 cut short (its compile alone took 1m51s),
# merged into the shipped database, and k3v3's decode bench on it (the ring
# now takes k3v3's 6-byte value slices; 2-stage k3v3 ran 461.8 us at B=32
# L=32K, 2.03x SDPA).
# Carry .carry/tqc-gpu.tar.xz, .carry/googletest.tgz and this file as
# .carry/call1.sh; bench/results moved out of the tree for the call.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
nvcc -O3 -arch=sm_90 -o /tmp/bulk_region bench/bulk_region_bench.cu && /tmp/bulk_region | tee $OUT/bulk-region.txt
rm -rf /tmp/ge; mkdir -p /tmp/ge; tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc
timeout 330 $tqc autotune --arch native --preset k3v3 --buckets 1,8,32,64 \
  -o /tmp/ge/db-k3v3.json --report /tmp/ge/tune-k3v3 > /tmp/ge/tune-k3v3.txt 2>&1
grep -v 'candidate [0-9]*/' /tmp/ge/tune-k3v3.txt | tail -8 | tee $OUT/tune-k3v3.txt
python3 - <<'PY'
import json
d = json.load(open("autotune/databases/nvidia-h200-sm_90.json"))
n = json.load(open("/tmp/ge/db-k3v3.json"))["entries"]
d["entries"] = [e for e in d["entries"] if e["preset"] != "k3v3"] + n
json.dump(d, open("/tmp/ge/db-merged.json", "w"), indent=1)
PY
cp /tmp/ge/db-merged.json autotune/databases/nvidia-h200-sm_90.json && cp /tmp/ge/db-merged.json $OUT/
G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge2"
DECODE_PRESETS="k3v3" timeout 150 $G decode 2>&1 | tail -2
cat /tmp/ge2/decode.txt | tee $OUT/decode-k3v3.txt
