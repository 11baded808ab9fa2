// A kernel laid out the way LLVM 22 writes `-S` output for gfx1100: the `.amdhsa_*` register
// counts are MC expressions (max, totalnumvgprs, extrasgprs, alignto, or) over `kernel.*` symbols
// that are `.set` only after the kernel, from `amdgpu.max_*` set at the end of the file.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	scale_add                       ; -- Begin function scale_add
	.p2align	8
	.type	scale_add,@function
scale_add:                              ; @scale_add
; %bb.0:
	s_clause 0x1
	s_load_b32 s2, s[0:1], 0x2c
	s_load_b32 s3, s[0:1], 0x18
	s_waitcnt lgkmcnt(0)
	s_and_b32 s2, s2, 0xffff
	s_delay_alu instid0(SALU_CYCLE_1) | instskip(NEXT) | instid1(VALU_DEP_1)
	v_mad_u64_u32 v[1:2], null, s15, s2, v[0:1]
	s_mov_b32 s2, exec_lo
	v_cmpx_gt_u32_e64 s3, v1
	s_cbranch_execz .LBB0_2
; %bb.1:
	s_load_b128 s[4:7], s[0:1], 0x0
	v_mov_b32_e32 v2, 0
	s_load_b32 s0, s[0:1], 0x1c
	s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)
	v_lshlrev_b64 v[0:1], 2, v[1:2]
	s_waitcnt lgkmcnt(0)
	v_add_co_u32 v2, vcc_lo, s4, v0
	v_add_co_ci_u32_e64 v3, null, s5, v1, vcc_lo
	global_load_b32 v2, v[2:3], off
	v_add_co_u32 v0, vcc_lo, s6, v0
	v_add_co_ci_u32_e64 v1, null, s7, v1, vcc_lo
	s_waitcnt vmcnt(0)
	v_fmac_f32_e32 v2, s0, v2
	global_store_b32 v[0:1], v2, off
.LBB0_2:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel scale_add
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size scale_add.private_seg_size
		.amdhsa_kernarg_size 288
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_wavefront_size32 1
		.amdhsa_uses_dynamic_stack or(scale_add.has_dyn_sized_stack, scale_add.has_recursion)
		.amdhsa_enable_private_segment or(0, scale_add.private_seg_size > 0)
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr max(totalnumvgprs(scale_add.num_agpr, scale_add.num_vgpr), 1, 0)
		.amdhsa_next_free_sgpr max(scale_add.numbered_sgpr+extrasgprs(scale_add.uses_vcc, scale_add.uses_flat_scratch, 0), 1, 0)-extrasgprs(scale_add.uses_vcc, scale_add.uses_flat_scratch, 0)
		.amdhsa_reserve_vcc scale_add.uses_vcc
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_workgroup_processor_mode 1
		.amdhsa_memory_ordered 1
		.amdhsa_forward_progress 1
		.amdhsa_shared_vgpr_count 0
		.amdhsa_inst_pref_size alignto(.Lfunc_end0-scale_add, 128)/128
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	scale_add, .Lfunc_end0-scale_add
                                        ; -- End function
	.set scale_add.num_vgpr, max(4, amdgpu.max_num_vgpr)
	.set scale_add.num_agpr, max(0, amdgpu.max_num_agpr)
	.set scale_add.numbered_sgpr, max(16, amdgpu.max_num_sgpr)
	.set scale_add.num_named_barrier, max(0, amdgpu.max_num_named_barrier)
	.set scale_add.private_seg_size, 0
	.set scale_add.uses_vcc, 1
	.set scale_add.uses_flat_scratch, 0
	.set scale_add.has_dyn_sized_stack, 0
	.set scale_add.has_recursion, 0
	.set scale_add.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 152
; TotalNumSgprs: scale_add.numbered_sgpr+extrasgprs(scale_add.uses_vcc, scale_add.uses_flat_scratch, 0)
; NumVgprs: scale_add.num_vgpr
; Occupancy: occupancy(16, 16, 1536, 16, 16, max(scale_add.numbered_sgpr+2, 1, 0), max(totalnumvgprs(scale_add.num_agpr, scale_add.num_vgpr), 1, 0))
	.text
	.p2alignl 7, 3214868480
	.fill 96, 4, 3214868480
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 288
    .max_flat_workgroup_size: 1024
    .name:           scale_add
    .private_segment_fixed_size: 0
    .sgpr_count:     18
    .sgpr_spill_count: 0
    .symbol:         scale_add.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     4
    .vgpr_spill_count: 0
    .wavefront_size: 32
    .workgroup_processor_mode: 1
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
