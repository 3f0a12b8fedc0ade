set -x
nvcc -arch=sm_90 -O2 -o /tmp/probe .carry/probe/probe.cu && /tmp/probe > $OUT/probe.txt 2>&1; echo probe rc $?
cat $OUT/probe.txt
[ -x /tmp/tqc-gpu/tqc ] || tar xJf .carry/tqc-gpu.tar.xz -C /tmp 2>/dev/null; tqc=/tmp/tqc-gpu/tqc
cp autotune/databases/nvidia-h200-sm_90.json $OUT/db.json
for p in k8v4 k3v3 k2v2 k4v2 bf16; do
  /usr/bin/time -f "$p autotune %e s" $tqc autotune --arch native --preset $p --buckets 1,8,32,64 -o $OUT/db.json --report $OUT/tune-$p > $OUT/tune-$p.txt 2>&1
  echo "$p exit $?"; tail -8 $OUT/tune-$p.txt
done
