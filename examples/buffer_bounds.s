// c[i] = 2 * a[i] through raw buffer resources (V#) whose num_records is n * 4 bytes: the
// hardware range check does the "if (i < n)" — work-items past n load 0 and their stores
// are dropped, so no branch is needed. V# word 3 = 0x30016FAC: DST_SEL XYZW, data format
// 32_FLOAT (22; a format of 0 would make the resource unbound), OOB_SELECT 3 (raw buffer).
// Assemble: wavesmith asm examples/buffer_bounds.s -o buffer_bounds.hsaco
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	buffer_bounds
	.p2align	8
	.type	buffer_bounds,@function
buffer_bounds:
	s_load_b128 s[4:7], s[0:1], 0x0          ; a, c
	s_load_b32 s3, s[0:1], 0x10              ; n
	v_lshl_add_u32 v1, s2, 6, v0             ; global id (64 work-items per group)
	v_lshlrev_b32_e32 v1, 2, v1              ; byte offset
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s10, s3, 2                    ; num_records = n * 4 bytes
	s_mov_b32 s14, s10
	s_mov_b32 s8, s4                         ; V# of a: base, stride 0, num_records, format
	s_and_b32 s9, s5, 0xffff
	s_mov_b32 s11, 0x30016fac
	s_mov_b32 s12, s6                        ; V# of c
	s_and_b32 s13, s7, 0xffff
	s_mov_b32 s15, s11
	buffer_load_b32 v2, v1, s[8:11], 0 offen
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v2, v2, v2
	buffer_store_b32 v2, v1, s[12:15], 0 offen
	s_endpgm
.Lbuffer_bounds_end:
	.size	buffer_bounds, .Lbuffer_bounds_end-buffer_bounds

	.rodata
	.p2align	6
	.amdhsa_kernel buffer_bounds
		.amdhsa_kernarg_size 20
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 16
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: c, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 16, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 20
    .max_flat_workgroup_size: 64
    .name: buffer_bounds
    .private_segment_fixed_size: 0
    .sgpr_count: 18
    .symbol: buffer_bounds.kd
    .vgpr_count: 3
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
