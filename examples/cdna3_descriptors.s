// CDNA3 kernel descriptors (gfx942): unified VGPR/AGPR file, accum_offset, SGPR granules
// with the extra SGPRs GFX9 reserves. The code is given as words: isa/ has no CDNA3 yet.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	mfma_like
	.p2align	8
	.type	mfma_like,@function
mfma_like:
	.long	0xbf810000                        ; s_endpgm
	.size	mfma_like, .-mfma_like
	.globl	scalar_only
	.p2align	8, 0                          ; zero fill: no s_nop encoding without CDNA3 in isa/
	.type	scalar_only,@function
scalar_only:
	.long	0xbf810000
	.size	scalar_only, .-scalar_only
	.rodata
	.p2align	6
	.amdhsa_kernel mfma_like
		.amdhsa_next_free_vgpr 76
		.amdhsa_next_free_sgpr 18
		.amdhsa_accum_offset 44
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_vgpr_workitem_id 1
		.amdhsa_group_segment_fixed_size 4096
		.amdhsa_tg_split 0
	.end_amdhsa_kernel
	.p2align	6
	.amdhsa_kernel scalar_only
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 33
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 0
		.amdhsa_private_segment_fixed_size 260
		.amdhsa_enable_private_segment 1
	.end_amdhsa_kernel
