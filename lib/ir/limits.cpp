#include "ir/limits.hpp"

#include "core/object.hpp"

namespace quasi {

namespace {
uint64_t integer_bits(Value v) {
  if (has_type(v, Type::Bignum)) return mpz_sizeinbase(&v.as<Bignum>()->z, 2);
  return 64;
}
}  // namespace

bool within_fold_limits(Value v) {
  if (!is_object(v)) return true;
  switch (object_type(v)) {
    case Type::String:
      return v.as<String>()->length() <= kMaxFoldStringChars;
    case Type::Bignum:
      return integer_bits(v) <= uint64_t(kMaxFoldIntegerBits);
    case Type::Ratnum: {
      Ratnum* q = v.as<Ratnum>();
      return mpz_sizeinbase(mpq_numref(&q->q), 2) <= uint64_t(kMaxFoldIntegerBits) &&
             mpz_sizeinbase(mpq_denref(&q->q), 2) <= uint64_t(kMaxFoldIntegerBits);
    }
    case Type::Vector:
      return v.as<Vector>()->length() <= kMaxFoldElements;
    case Type::Bytevector:
      return v.as<Bytevector>()->length() <= kMaxFoldElements;
    case Type::Pair: {
      int64_t n = 0;
      for (Value l = v; is_pair(l); l = cdr(l))
        if (++n > kMaxFoldElements) return false;  // also stops on a cycle
      return true;
    }
    case Type::Values:
      return false;
    default:
      return true;
  }
}

}  // namespace quasi
