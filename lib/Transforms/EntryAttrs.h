//===- EntryAttrs.h - Argument/result attributes of entries -----*- C++ -*-===//
//
// Private to lib/Transforms: the passes that add inputs or outputs to an
// entry rebuild its attribute arrays with these.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TRANSFORMS_ENTRYATTRS_H
#define LIB_TRANSFORMS_ENTRYATTRS_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace capture {

/// One dictionary per result of `entry` (empty where it has none).
inline llvm::SmallVector<mlir::Attribute>
resultAttrDicts(mlir::FunctionOpInterface entry) {
  llvm::SmallVector<mlir::Attribute> dicts;
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i) {
    mlir::DictionaryAttr dict = entry.getResultAttrDict(i);
    dicts.push_back(dict ? dict
                         : mlir::DictionaryAttr::get(entry.getContext()));
  }
  return dicts;
}

/// One dictionary per argument of `entry` (empty where it has none).
inline llvm::SmallVector<mlir::Attribute>
argAttrDicts(mlir::FunctionOpInterface entry) {
  llvm::SmallVector<mlir::Attribute> dicts;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    mlir::DictionaryAttr dict = entry.getArgAttrDict(i);
    dicts.push_back(dict ? dict
                         : mlir::DictionaryAttr::get(entry.getContext()));
  }
  return dicts;
}

} // namespace capture

#endif // LIB_TRANSFORMS_ENTRYATTRS_H
