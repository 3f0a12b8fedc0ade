# Session 17's second H200 call: the wgmma building blocks (bench/wgmma_probe.cu).
nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -I templates bench/wgmma_probe.cu -o /tmp/wgmma_probe > $OUT/probe.txt 2>&1
/tmp/wgmma_probe >> $OUT/probe.txt 2>&1; echo "exit $?" >> $OUT/probe.txt
