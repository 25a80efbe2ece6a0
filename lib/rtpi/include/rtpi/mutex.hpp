// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtpi/mutex.hpp - rtpi::mutex, a priority-inheriting std::mutex
 * (header-only, over rtpi.h; C++11 or later).
 *
 * Meets the Mutex requirements, so std::lock_guard, std::unique_lock,
 * std::scoped_lock and std::lock work with it.  lock() throws
 * std::system_error where std::mutex would (a deadlock: EDEADLK).
 * See rtpi(7).
 */
#ifndef RTPI_MUTEX_HPP
#define RTPI_MUTEX_HPP

#include <mutex>	/* std::lock_guard, std::unique_lock for the users */
#include <system_error>

#include <rtpi.h>

namespace rtpi {

class mutex {
public:
	typedef pi_mutex_t *native_handle_type;

	/* constant initialization, as std::mutex: no call into the library */
	constexpr mutex() noexcept : m_(PI_MUTEX_INIT(0)) {}
	/* flags: RTPI_MUTEX_PSHARED (the object must then live in memory
	 * shared by the processes) */
	explicit mutex(uint32_t flags)
	{
		int e = pi_mutex_init(&m_, flags);

		if (e)
			throw std::system_error(e, std::generic_category(),
						"pi_mutex_init");
	}
	~mutex() { pi_mutex_destroy(&m_); }
	mutex(const mutex &) = delete;
	mutex &operator=(const mutex &) = delete;

	void lock()
	{
		int e = pi_mutex_lock(&m_);

		if (e)
			throw std::system_error(e, std::generic_category(),
						"pi_mutex_lock");
	}
	bool try_lock() noexcept { return pi_mutex_trylock(&m_) == 0; }
	void unlock() noexcept { pi_mutex_unlock(&m_); }
	native_handle_type native_handle() noexcept { return &m_; }

private:
	pi_mutex_t m_;
};

} // namespace rtpi

#endif /* RTPI_MUTEX_HPP */
