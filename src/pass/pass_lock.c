// SPDX-License-Identifier: GPL-2.0-or-later
/* --once's lock against adopt (include/pass.h, devlock.h). */
#include "pass.h"

#include "devlock.h"
#include "log.h"

#include <errno.h>
#include <string.h>

int pass_once_lock(int root_fd, unsigned wait_ms)
{
	static int fd = -1; /* held until the process ends */
	int r = devlock_wait(root_fd, DEVLOCK_ADOPT, false, wait_ms, &fd);

	if (r == -EAGAIN)
		log_error("/%s/adopt: held for %u s: an adopt is running; nothing set up and no "
			  "pass now",
			  DEVLOCK_DIR, wait_ms / 1000);
	else if (r < 0)
		log_debug("/%s/adopt: %s: not locked against adopt", DEVLOCK_DIR, strerror(-r));
	return r == -EAGAIN ? r : 0;
}
