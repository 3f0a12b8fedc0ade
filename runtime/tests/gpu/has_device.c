/* Exit 0 when the CUDA driver sees a device, else print why and exit 77 (the
 * GPU tests' SKIP_RETURN_CODE): GPU tests skip with a message, never fail,
 * on a machine without a GPU. */
#include "tqrt/tqrt.h"

#include <stdio.h>

int main(void) {
  int32_t n = 0;
  tqrt_status s = tqrt_device_count(&n);
  if (s == TQRT_NO_DEVICE) {
    printf("skipping: %s\n", tqrt_last_error());
    return 77;
  }
  if (s != TQRT_OK) {
    fprintf(stderr, "%s: %s\n", tqrt_status_name(s), tqrt_last_error());
    return 1;
  }
  printf("%d CUDA device(s)\n", n);
  return 0;
}
