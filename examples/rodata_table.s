// out[i] = table[i % 16] + sizeof(table) for i < n, with `table` a constant array in .rodata
// reached the way LLVM's compiler output does: s_getpc_b64 plus sym@rel32@lo/hi literals
// (the +4/+12 addends turn "address of the literal" into "address after s_getpc_b64").
// Assemble: wavesmith asm examples/rodata_table.s -o rodata_table.hsaco
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	table_lookup
	.p2align	8
	.type	table_lookup,@function
table_lookup:
	s_load_b64 s[4:5], s[0:1], 0x0           ; out
	s_load_b32 s6, s[0:1], 0x8               ; n
	s_getpc_b64 s[8:9]
	s_add_u32 s8, s8, table@rel32@lo+4
	s_addc_u32 s9, s9, table@rel32@hi+12
	v_lshl_add_u32 v1, s2, 6, v0             ; global id, 64 work-items per group
	v_and_b32_e32 v2, 15, v1
	v_lshlrev_b32_e32 v2, 2, v2
	global_load_b32 v3, v2, s[8:9]
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32_e32 vcc_lo, s6, v1
	s_and_saveexec_b32 s7, vcc_lo
	s_cbranch_execz .Ldone
	v_lshlrev_b32_e32 v1, 2, v1
	s_waitcnt vmcnt(0)
	v_add_nc_u32_e32 v3, .Ltable_end-table, v3   ; a label difference as a literal
	global_store_b32 v1, v3, s[4:5]
.Ldone:
	s_endpgm
.Ltable_lookup_end:
	.size	table_lookup, .Ltable_lookup_end-table_lookup

	.rodata
	.p2align	4
	.type	table,@object
table:
	.long	3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3
.Ltable_end:
	.size	table, .Ltable_end-table

	.p2align	6
	.amdhsa_kernel table_lookup
		.amdhsa_kernarg_size 12
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
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 64
    .name: table_lookup
    .private_segment_fixed_size: 0
    .sgpr_count: 12
    .symbol: table_lookup.kd
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
