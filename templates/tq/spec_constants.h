/*===- spec_constants.h - Enum values of the TqSpec constants -------------===*
 *
 * The values the generated TqSpec uses for its quantizer and rotation kinds.
 * Plain macros (not an enum class) so that the emitter, the C runtime and
 * the templates all spell them the same way and C code can include this.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_SPEC_CONSTANTS_H
#define TQ_SPEC_CONSTANTS_H

/* How the (rotated) coordinates of K or V become codes (numerics QuantKind). */
#define TQ_QUANT_NONE 0      /* bf16 elements, no compression */
#define TQ_QUANT_LLOYD_MAX 1 /* codebook indices + fp16 scale (+ QJL) */
#define TQ_QUANT_UNIFORM 2   /* min/max codes + fp16 scale and zero */
#define TQ_QUANT_FP8 3       /* e4m3 elements, raw saturating cast */

/* Rotation before quantizing (numerics RotationKind; only the randomized
 * Hadamard reaches the kernels: a plain Hadamard is the same code with all
 * sign masks zero). */
#define TQ_ROT_NONE 0
#define TQ_ROT_HADAMARD 1

#endif /* TQ_SPEC_CONSTANTS_H */
