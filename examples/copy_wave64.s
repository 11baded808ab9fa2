// Wave64 copy with a bounds check (assemble with --wave64): VCC and EXEC are 64-bit.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1151"
	.amdhsa_code_object_version 5
	.set	copy_wave64.num_vgpr, 3
	.set	copy_wave64.num_sgpr, max(10, 8)
	.text
	.globl	copy_wave64
	.p2align	8
	.type	copy_wave64,@function
copy_wave64:
	s_load_b128 s[4:7], s[0:1], 0x0          ; src, dst
	s_load_b32 s8, s[0:1], 0x10              ; n
	v_lshl_add_u32 v1, s2, 6, v0
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32_e32 vcc, s8, v1
	s_and_saveexec_b64 s[8:9], vcc
	s_cbranch_execz .Lout
	v_lshlrev_b32_e32 v1, 2, v1
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	global_store_b32 v1, v2, s[6:7]
.Lout:
	s_endpgm
.Lcopy_end:
	.size	copy_wave64, .Lcopy_end-copy_wave64

	.rodata
	.p2align	6
	.amdhsa_kernel copy_wave64
		.amdhsa_kernarg_size 20
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr copy_wave64.num_vgpr
		.amdhsa_next_free_sgpr copy_wave64.num_sgpr
		.amdhsa_wavefront_size32 0
	.end_amdhsa_kernel
