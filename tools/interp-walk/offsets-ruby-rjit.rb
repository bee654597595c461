# Ruby 3.3's and 3.4's real offsets, printed as name=value lines with the names of
# ruby-layout.c (stitch's table): check-ruby-roots.sh runs it inside a Debian 13, sid and
# experimental root (3.3.14, 3.3.8, 3.4.11) and compares.
#
# 3.3 and 3.4 ship no MJIT header.  RubyVM::RJIT::C is RJIT's binding of the VM's
# structures: its sizes, offsets and constants are Primitive.cexpr! of
# OFFSETOF()/SIZEOF()/the macros, compiled into this very libruby, so they are this build's
# own.  What it does not bind (rb_classext_t, the imemo types of method entries, the iseq
# types, the insns_info table's fields; 3.4: RUBY_FL_SINGLETON) was taken from ruby/ruby's
# sources (3.4: and ruby3.4-dev's public headers) and is checked here against live objects
# of this process (Fiddle reads its own memory), or else by the exact-frame tests.
#   ruby --rjit=disable offsets-ruby-rjit.rb TABLE
require "fiddle"

C = RubyVM::RJIT::C
$bad = 0

def out(name, value)
  puts "#{name}=#{value}"
end

def off(type, *fields)
  C.send(type).offsetof(*fields)
end

def word(addr, off = 0)
  Fiddle::Pointer.new(addr + off)[0, 8].unpack1("Q")
end

def byte(addr, off)
  Fiddle::Pointer.new(addr + off)[0, 1].unpack1("C")
end

def val(obj)
  Fiddle.dlwrap(obj)
end

# A fact of this process that the table's value must explain.
def check(what, ok)
  return if ok
  puts "MISMATCH #{what}"
  $bad = 1
end

ec = :rb_execution_context_t
out :ec_vm_stack, off(ec, :vm_stack)
out :ec_vm_stack_size, off(ec, :vm_stack_size)
out :ec_cfp, off(ec, :cfp)
out :cfp_size, C.rb_control_frame_t.size
out :cfp_pc, off(:rb_control_frame_t, :pc)
out :cfp_iseq, off(:rb_control_frame_t, :iseq)
out :cfp_ep, off(:rb_control_frame_t, :ep)
out :ep_me_cref_below, -C::VM_ENV_DATA_INDEX_ME_CREF * 8
out :ep_specval_below, -C::VM_ENV_DATA_INDEX_SPECVAL * 8
out :env_flag_local, C::VM_ENV_FLAG_LOCAL
out :magic_cfunc, C::VM_FRAME_MAGIC_CFUNC
out :flag_cframe, C::VM_FRAME_FLAG_CFRAME
out :iseq_body, off(:rb_iseq_t, :body)
out :me_def, off(:rb_callable_method_entry_t, :def)
out :me_owner, off(:rb_callable_method_entry_t, :owner)
out :me_read, C.rb_callable_method_entry_t.size
out :def_original_id, off(:rb_method_definition_struct, :original_id)
out :def_cfunc_func, off(:rb_method_definition_struct, :body) + off(:rb_method_cfunc_t, :func)
body = :rb_iseq_constant_body
out :body_type, off(body, :type)
out :body_iseq_size, off(body, :iseq_size)
out :body_iseq_encoded, off(body, :iseq_encoded)
out :body_pathobj, off(body, :location) + off(:rb_iseq_location_t, :pathobj)
out :body_label, off(body, :location) + off(:rb_iseq_location_t, :label)
# struct iseq_insn_info { body, positions, size, succ_index_table } (iseq.h): not bound
out :body_insns_info, off(body, :insns_info)
out :body_local_iseq, off(body, :local_iseq)
out :body_read, off(body, :local_iseq) + 8
out :t_mask, C::RUBY_T_MASK
out :t_string, C::RUBY_T_STRING
out :t_array, C::RUBY_T_ARRAY
out :t_class, C::RUBY_T_CLASS
out :t_module, C::RUBY_T_MODULE
# FL_SINGLETON: bound in 3.3; 3.4 binds RCLASS_SINGLETON_P (a function) instead.  There,
# the one flag bit (FL_USER0..19) set on exactly the singleton classes among this process's
# classes (Module#singleton_class?, the VM's own answer).
classes = ObjectSpace.each_object(Class).to_a
singleton_bits = (12..31).select do |b|
  classes.all? { |k| ((word(val(k)) >> b) & 1 == 1) == k.singleton_class? }
end
out :fl_singleton, C.const_defined?(:RUBY_FL_SINGLETON) ? C::RUBY_FL_SINGLETON :
  (singleton_bits.size == 1 ? 1 << singleton_bits[0] : -1)
out :str_len, off(:RString, :len)
out :str_ptr, off(:RString, :as)
out :str_embed, off(:RString, :as)
out :ary_embed_flag, C::RARRAY_EMBED_FLAG
out :ary_embed_len_shift, C::RARRAY_EMBED_LEN_SHIFT
out :ary_embed_len_mask, C::RARRAY_EMBED_LEN_MASK >> C::RARRAY_EMBED_LEN_SHIFT
out :ary_embed, off(:RArray, :as)
out :ary_len, off(:RArray, :as)
out :imemo_iseq, C.imemo_iseq

# ---- live objects: what the table says of them must hold ----
t = {}
File.foreach(ARGV[0]) { |l| k, v = l.chomp.split("=", 2); t[k.to_sym] = Integer(v) } if ARGV[0]
abort "usage: offsets-ruby-rjit.rb TABLE (ruby-layout 3.N's output)" if t.empty?

def imemo_type(t, addr)
  f = word(addr)
  (f & t[:t_mask]) == t[:t_imemo] ? (f >> t[:imemo_shift]) & t[:imemo_mask] : -1
end

# A method entry (String#upcase, a C method) and a method's and a block's iseq.
me = C.rb_method_entry_at(String, C.rb_sym2id(:upcase)).to_i
check "imemo_ment: String#upcase's entry", imemo_type(t, me) == t[:imemo_ment]
check "me_owner", word(me, t[:me_owner]) == val(String)
check "def_original_id", word(word(me, t[:me_def]), t[:def_original_id]) == C.rb_sym2id(:upcase)

def probe
  [1].each { |x| return RubyVM::InstructionSequence.of(proc { x }) }
end
miseq = C.rb_iseqw_to_iseq(RubyVM::InstructionSequence.of(method(:probe))).to_i
bw = probe
biseq = C.rb_iseqw_to_iseq(bw).to_i
check "imemo_iseq", imemo_type(t, miseq) == t[:imemo_iseq]
mbody = word(miseq, t[:iseq_body])
bbody = word(biseq, t[:iseq_body])
check "iseq_method", Fiddle::Pointer.new(mbody + t[:body_type])[0, 4].unpack1("L") == t[:iseq_method]
check "iseq_block", Fiddle::Pointer.new(bbody + t[:body_type])[0, 4].unpack1("L") == t[:iseq_block]
check "body_label", word(mbody, t[:body_label]) == val(RubyVM::InstructionSequence.of(method(:probe)).label)
check "body_local_iseq (method)", word(mbody, t[:body_local_iseq]) == miseq
check "body_local_iseq (block in a block)", word(bbody, t[:body_local_iseq]) == miseq
check "body_insns_info_size", Fiddle::Pointer.new(mbody + t[:body_insns_info_size])[0, 4].unpack1("L").between?(1, 64)
check "body_succ_index follows size", t[:body_succ_index] == t[:body_insns_info_size] + 8

# The insns_info entries ({line_no, node_id, events}, insn_info_entry_size apart): their
# lines are the lines iseq.to_a gives the method's instructions, in order, each one once
# per change (an entry per event or line; to_a repeats none).
def lines_of(body, t)
  info = word(body, t[:body_insns_info])
  n = Fiddle::Pointer.new(body + t[:body_insns_info_size])[0, 4].unpack1("L")
  ls = (0...n).map { |i| Fiddle::Pointer.new(info + i * t[:insn_info_entry_size])[0, 4].unpack1("l") }
  ls.chunk_while { |a, b| a == b }.map(&:first)
end
def multi_line_probe(a)
  b = a + 1
  c = [a, b].map { |x| x * 2 }
  c.sum +
    b
end
mlp = RubyVM::InstructionSequence.of(method(:multi_line_probe))
want = mlp.to_a.last.grep(Integer).chunk_while { |a, b| a == b }.map(&:first)
check "insns_info lines (entry size #{t[:insn_info_entry_size]})",
  lines_of(word(C.rb_iseqw_to_iseq(mlp).to_i, t[:iseq_body]), t) == want && want.size >= 3

# Strings: embedded ("ab", its length at .len as well) and not.
s = "ab".dup
check "str embedded, len", (word(val(s)) & t[:str_noembed]) == 0 && word(val(s), t[:str_len]) == 2 &&
  Fiddle::Pointer.new(val(s) + t[:str_embed])[0, 2] == "ab"
l = "x" * 5000  # past the largest embedded size
check "str_noembed, str_ptr", (word(val(l)) & t[:str_noembed]) != 0 &&
  Fiddle::Pointer.new(word(val(l), t[:str_ptr]))[0, 3] == "xxx"

# Classes (rb_classext_t after struct RClass): a named class's permanent classpath, the
# object a singleton class is attached to, a path under an anonymous namespace (not permanent).
module Probe; class K; end; end
k = Probe::K
perm = ->(c) { (byte(val(c), t[:cls_permanent]) & t[:cls_permanent_bit]) != 0 }
check "cls_classpath", word(val(k), t[:cls_classpath]) == val(k.name)
check "cls_permanent (named)", perm.(k)
check "cls_attached", word(val(k.singleton_class), t[:cls_attached]) == val(k)
check "fl_singleton", (word(val(k.singleton_class)) & t[:fl_singleton]) != 0 && (word(val(k)) & t[:fl_singleton]) == 0
check "fl_singleton: set on exactly the #{classes.size} classes' singletons",
  singleton_bits.map { |b| 1 << b } == [t[:fl_singleton]]
anon = Module.new
anon.const_set(:Inner, Class.new)
check "cls_permanent (under an anonymous module)", !perm.(anon::Inner)

# tLAST_OP_ID: rb_id2str's own "cmp $tLAST_OP_ID, %rdi" (48 81 ff imm32; 3.3.14) or
# "cmp $tLAST_OP_ID, %rax" (48 3d imm32; 3.3.8, 3.4.11).
code = Fiddle::Pointer.new(Fiddle::Handle::DEFAULT["rb_id2str"])[0, 32]
imm = (i = code.index("\x48\x81\xff".b)) ? code[i + 3, 4] : (i = code.index("\x48\x3d".b)) && code[i + 2, 4]
check "tlast_op_id (rb_id2str's code)", imm && imm.unpack1("L") == t[:tlast_op_id]
exit $bad
