"""An e-mail backend for a worker in another process: each message takes a moment to send
(as over SMTP), then is written to its own file in EMAIL_FILE_PATH, where a test counts it."""

import os
import time
import uuid
from pathlib import Path
from typing import Any

from django.core.mail.backends.base import BaseEmailBackend


class EmailBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Any) -> int:
        folder = Path(os.environ["EMAIL_FILE_PATH"])
        for message in email_messages:
            time.sleep(float(os.environ.get("SLOW_MAIL_SECONDS", "0.3")))
            name = folder / f"{time.time_ns()}-{uuid.uuid4().hex}.eml"
            name.write_bytes(message.message().as_bytes())
        return len(email_messages)
