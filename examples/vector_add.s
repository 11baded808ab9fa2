// c[i] = a[i] + b[i] for i < n: one work-item per element, 256 per work-group.
// Assemble: wavesmith asm examples/vector_add.s -o vector_add.hsaco
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	vector_add
	.p2align	8
	.type	vector_add,@function
vector_add:
	s_load_b128 s[4:7], s[0:1], 0x0          ; a, b
	s_load_b64 s[8:9], s[0:1], 0x10          ; c
	s_load_b32 s10, s[0:1], 0x18             ; n
	v_lshl_add_u32 v1, s2, 8, v0             ; global id (s2 = work-group id x)
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32_e32 vcc_lo, s10, v1
	s_and_saveexec_b32 s11, vcc_lo
	s_cbranch_execz .Ldone
	v_lshlrev_b32_e32 v1, 2, v1
	global_load_b32 v2, v1, s[4:5]
	global_load_b32 v3, v1, s[6:7]
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v2, v2, v3
	global_store_b32 v1, v2, s[8:9]
.Ldone:
	s_endpgm
.Lvector_add_end:
	.size	vector_add, .Lvector_add_end-vector_add

	.rodata
	.p2align	6
	.amdhsa_kernel vector_add
		.amdhsa_kernarg_size 28
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 12
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: b, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 24, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 28
    .max_flat_workgroup_size: 256
    .name: vector_add
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .symbol: vector_add.kd
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
