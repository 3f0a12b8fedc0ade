# Session 13 call 3 (33680a2: half path default, queries before the branch;
# the shipped database): GPU tier, then the decode bench of k3v4 and k4v4.
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
$G tier 2>&1 | tail -4
DECODE_PRESETS="k3v4 k4v4" timeout 150 $G decode 2>&1 | tail -2
tail -32 /tmp/ge/decode.txt
cd /tmp && tar czf $OUT/gpu-eval.tgz --exclude=work ge
