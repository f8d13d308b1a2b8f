//===- deferred.cpp - Deferred runs and their one submission --------------===//
//
// The queue lives on the device, not on a module: modules that share
// weights share a device, and the rule "deferred work first" must hold for
// every module that could read what a waiting run writes.
//
//===----------------------------------------------------------------------===//

#include "capture/rt/deferred.h"

#include "device_impl.h"

namespace capture::rt {

uint64_t Device::Impl::deferRun(DeferredItem item) {
  item.ticket = nextTicket++;
  deferred.push_back(std::move(item));
  return deferred.back().ticket;
}

uint64_t Device::Impl::ranAtOnce(Result<RunResult> result) {
  uint64_t ticket = nextTicket++;
  DeferredOutcome &out = deferredDone[ticket];
  if (result.isError())
    out.status = result.status();
  else
    out.result = std::move(result).value();
  return ticket;
}

bool Device::Impl::hasDeferred(const void *owner) const {
  for (const auto *items : {&deferred, &riding})
    for (const DeferredItem &item : *items)
      if (item.owner == owner)
        return true;
  return false;
}

std::vector<VkCommandBuffer> Device::Impl::takeRiders(VkFence fence,
                                                      std::string &what) {
  std::vector<VkCommandBuffer> cmds;
  if (deferred.empty())
    return cmds;
  std::string names;
  for (const DeferredItem &item : deferred) {
    cmds.insert(cmds.end(), item.cmds.begin(), item.cmds.end());
    names += (names.empty() ? "" : ", ") + item.what;
  }
  what += " (with " + std::to_string(deferred.size()) + " deferred run" +
          (deferred.size() > 1 ? "s: " : ": ") + names + ")";
  riding.insert(riding.end(), std::make_move_iterator(deferred.begin()),
                std::make_move_iterator(deferred.end()));
  deferred.clear();
  ridingFence = fence;
  return cmds;
}

void Device::Impl::finishRiders(VkFence fence, const Status &status) {
  if (riding.empty() || fence != ridingFence)
    return;
  std::vector<DeferredItem> items = std::move(riding);
  riding.clear();
  for (DeferredItem &item : items) {
    Result<RunResult> r = item.finish(status);
    if (deferredForgotten.erase(item.ticket))
      continue;
    DeferredOutcome &out = deferredDone[item.ticket];
    if (r.isError())
      out.status = r.status();
    else
      out.result = std::move(r).value();
  }
}

Status Device::Impl::wait(VkFence fence, const std::string &what,
                          WaitHistory *history) {
  Status status = waitFence(fence, what, history);
  finishRiders(fence, status);
  return status;
}

Status Device::Impl::submitDeferred() {
  if (deferred.empty())
    return Status::ok();
  std::string what = "the submission of deferred runs";
  if (!deferredFence) {
    VkFenceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    Status created =
        check(vkCreateFence(device, &info, nullptr, &deferredFence),
              "vkCreateFence", what);
    if (created.isError())
      return created; // the runs wait on, for the next submission
  }
  // submit() takes every waiting run along; wait() finishes them.
  CAPTURE_RT_RETURN_IF_ERROR(
      submit(std::vector<VkCommandBuffer>(), deferredFence, what));
  return wait(deferredFence, what);
}

Status Device::submitDeferred() { return impl_->submitDeferred(); }

size_t Device::deferredCount() const { return impl_->deferred.size(); }

uint64_t Device::submitCount() const { return impl_->submits.load(); }

DeferredRun::DeferredRun(std::shared_ptr<Device> device, uint64_t ticket)
    : device_(std::move(device)), ticket_(ticket) {}

DeferredRun::DeferredRun(DeferredRun &&other) noexcept
    : device_(std::move(other.device_)), ticket_(other.ticket_) {
  other.ticket_ = 0;
}

DeferredRun &DeferredRun::operator=(DeferredRun &&other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::move(other.device_);
    ticket_ = other.ticket_;
    other.ticket_ = 0;
  }
  return *this;
}

DeferredRun::~DeferredRun() { reset(); }

void DeferredRun::reset() {
  if (!ticket_)
    return;
  Device::Impl &dev = device_->impl();
  if (!dev.deferredDone.erase(ticket_))
    dev.deferredForgotten.insert(ticket_);
  ticket_ = 0;
  device_.reset();
}

bool DeferredRun::done() const {
  return ticket_ && device_->impl().deferredDone.count(ticket_);
}

Result<RunResult> DeferredRun::take() {
  if (!ticket_)
    return Status::error("DeferredRun::take: the handle holds no run (its "
                         "result was taken, or it was never deferred)");
  std::shared_ptr<Device> device = std::move(device_);
  uint64_t ticket = ticket_;
  ticket_ = 0;
  Device::Impl &dev = device->impl();
  if (!dev.deferredDone.count(ticket))
    (void)dev.submitDeferred(); // its error is the run's too
  auto it = dev.deferredDone.find(ticket);
  if (it == dev.deferredDone.end())
    return Status::error("DeferredRun::take: the run was not submitted");
  DeferredOutcome out = std::move(it->second);
  dev.deferredDone.erase(it);
  if (out.status.isError())
    return out.status;
  return std::move(out.result);
}

} // namespace capture::rt
