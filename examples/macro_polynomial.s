// y[i] = p(x[i]) for i < n, p(x) = 0.5x^3 + 0.5x^2 + 0.5x + 1 evaluated by Horner's rule, the
// degree chosen at assembly time: a macro per Horner step, `.if`/`.ifdef`/`.ifc` choosing code,
// `.exitm` leaving a macro early and `\@` making labels unique per expansion.
// Assemble: wavesmith asm examples/macro_polynomial.s -o macro_polynomial.hsaco
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.set DEGREE, 3
	.set CHECK_BOUNDS, 1

// acc = acc * x + coefficient (one Horner step); a zero coefficient needs only the product
.macro horner_step acc:req, x:req, coefficient=0
	.ifc \coefficient, 0
	v_mul_f32_e32 \acc, \acc, \x
	.exitm
	.endif
	v_fma_f32 \acc, \acc, \x, \coefficient
.endm

// a global load, then a branch over a nop when no lane is active; \@ numbers its label uniquely
.macro load_or_skip dst, addr, base
	global_load_b32 \dst, \addr, \base
	s_waitcnt vmcnt(0)
	s_cbranch_execz .Lskip\@
	s_nop 0
.Lskip\@:
.endm

	.text
	.globl	polynomial
	.p2align	8
	.type	polynomial,@function
polynomial:
	s_load_b128 s[4:7], s[0:1], 0x0           ; x, y
	s_load_b32 s8, s[0:1], 0x10               ; n
	v_lshl_add_u32 v1, s2, 8, v0
	s_waitcnt lgkmcnt(0)
.if CHECK_BOUNDS
	v_cmp_gt_u32_e32 vcc_lo, s8, v1
	s_and_saveexec_b32 s9, vcc_lo
	s_cbranch_execz .Ldone
.endif
	v_lshlrev_b32_e32 v1, 2, v1
	load_or_skip v2, v1, s[4:5]
	v_mov_b32_e32 v3, 0
	.rept DEGREE
	horner_step v3, v2, 0.5
	.endr
	horner_step v3, v2
.ifdef UNDEFINED_FEATURE
	v_mov_b32_e32 v3, 0
.elseif DEGREE > 2
	v_add_f32_e32 v3, 1.0, v3                 ; the constant term
.else
	v_add_f32_e32 v3, 2.0, v3
.endif
	global_store_b32 v1, v3, s[6:7]
.Ldone:
	s_endpgm
.Lpolynomial_end:
	.size	polynomial, .Lpolynomial_end-polynomial

	.rodata
	.p2align	6
	.amdhsa_kernel polynomial
		.amdhsa_kernarg_size 20
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 10
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .name: x, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: y, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 16, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 20
    .max_flat_workgroup_size: 256
    .name: polynomial
    .private_segment_fixed_size: 0
    .sgpr_count: 12
    .symbol: polynomial.kd
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
