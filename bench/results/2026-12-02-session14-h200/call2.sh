# Session 14 call 2: does the decode's bandwidth follow the page size?
# (region_read_bench: the access pattern alone, now with 32-token pages;
# decode_bench of k3v4/k4v4 bundles at 16/32/64-token pages, shipped plans.)
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
nvcc -O3 -arch=sm_90 -o /tmp/region_read bench/region_read_bench.cu && /tmp/region_read | tee $OUT/region-read.txt
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
DECODE_PRESETS=k3v4 $G decode > /dev/null 2>&1   # builds the runtime, bundle k3v4 (pages of 16)
tqc=/tmp/tqc-gpu/tqc; db=autotune/databases/nvidia-h200-sm_90.json
for p in k3v4 k4v4; do for bs in 32 64; do
  $tqc --arch sm_90 --preset $p --tuning-db $db --block-size $bs -o /tmp/ge/work/$p-bs$bs > /tmp/ge/work/$p-bs$bs.txt 2>&1
done; done
$tqc --arch sm_90 --preset k4v4 --tuning-db $db -o /tmp/ge/work/k4v4 > /dev/null 2>&1
python3 bench/decode_bench.py --tqrt build-gpu/runtime --batch 8 32 64 --context 32768 \
  --bundles /tmp/ge/work/k3v4 /tmp/ge/work/k3v4-bs32 /tmp/ge/work/k3v4-bs64 /tmp/ge/work/k4v4 /tmp/ge/work/k4v4-bs32 /tmp/ge/work/k4v4-bs64 \
  --json $OUT/decode-pages.json 2>&1 | tee $OUT/decode-pages.txt
