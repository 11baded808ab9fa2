// Unrolling with .rept: 4 x (8 FMAs + one VOPD pair) per loop trip, and a table of squares
// built with a .set counter.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	rept_fma
	.p2align	8
	.type	rept_fma,@function
rept_fma:
	s_mov_b32 s4, 16
.Lloop:
	.rept 4
	.rept 8
	v_fmac_f32_e32 v1, v2, v3
	.endr
	v_dual_fmac_f32 v10, v1, v2 :: v_dual_fmac_f32 v11, v4, v7
	.endr
	s_sub_u32 s4, s4, 1
	s_cmp_lg_u32 s4, 0
	s_cbranch_scc1 .Lloop
	s_endpgm
.Lend:
	.size	rept_fma, .Lend-rept_fma

	.data
	.p2align	2
squares:
	.set	i, 0
	.rept 6
	.long	i * i
	.set	i, i + 1
	.endr
	.short	.Lsquares_end - squares
.Lsquares_end:

	.rodata
	.p2align	6
	.amdhsa_kernel rept_fma
		.amdhsa_next_free_vgpr 12
		.amdhsa_next_free_sgpr 5
	.end_amdhsa_kernel
