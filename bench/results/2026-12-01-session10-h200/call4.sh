set -x
sum=$(md5sum .carry/tqc-gpu.tar.xz | cut -d' ' -f1)
if [ "$(cat /tmp/tqc-gpu/.packed-md5 2>/dev/null)" != "$sum" ]; then rm -rf /tmp/tqc-gpu; tar xJf .carry/tqc-gpu.tar.xz -C /tmp; echo $sum > /tmp/tqc-gpu/.packed-md5; fi
tqc=/tmp/tqc-gpu/tqc
T=$OUT/trace; mkdir -p $T
[ -f build-gpu/runtime/libtqrt.so ] || (cmake -S . -B build-gpu -DTQC_BUILD_COMPILER=OFF -DTQC_GTEST_SOURCE_DIR=$PWD/.carry/googletest >/dev/null 2>&1; cmake --build build-gpu -j16 --target tqrt tqrt_python 2>&1 | tail -1) &
D="TQ_DEBUG_CTA_TRACE=67108864"
for v in "s2w8:$D:--splits 2 --warps 8" "s4w8:$D:--splits 4 --warps 8" "s4w8use:$D TQ_SPLIT_DEEP_MIN_TOKENS=128 TQ_SPLIT_IDLE_WARPS_PER_SM=16:--splits 4 --warps 8" "s4w4:$D:--splits 4 --warps 4" "s8w4:$D:--splits 8 --warps 4"; do
  n=${v%%:*}; r=${v#*:}; defs=${r%%:*}; o=${r#*:}
  TQC_DEVICE_DEFINES="$defs" $tqc --arch sm_90 --preset k3v4 --block-n 64 --stages 3 $o -o /tmp/tb-$n > $T/build-$n.txt 2>&1 &
done; wait
ls build-gpu/runtime | head -3
tr() { n=$1; shift; python3 bench/cta_trace.py run --bundle /tmp/tb-$n --batch 8 --context 1024 --launches 8 --tqrt build-gpu/runtime "$@" > $T/raw-$n$TAG.txt 2>&1; python3 bench/cta_trace.py analyze $T/raw-$n$TAG.txt > $T/trace-$n$TAG.txt 2>&1; echo "== $n$TAG"; head -c 2500 $T/trace-$n$TAG.txt; }
for n in s2w8 s4w8 s4w8use s4w4 s8w4; do TAG= tr $n; done
TQRT_PLAIN_LAUNCH=1 TAG=-plain tr s4w8
TQRT_PLAIN_LAUNCH=1 TAG=-plain tr s2w8
