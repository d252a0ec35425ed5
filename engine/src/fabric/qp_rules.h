// The RC transition rules of ibv_modify_qp(3) shared by the backends: the
// exact attribute masks per transition and the field ranges. A rule
// violation is invalidArgument and the caller changes nothing.
#pragma once

#include <smcr/fabric_types.h>
#include <smcr/result.h>

namespace smcr::fabric {

Status checkQpTransition(QpState current, const QpAttr& attr, QpAttrMask mask, uint32_t portCount);

}  // namespace smcr::fabric
