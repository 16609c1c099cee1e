"""``python -P -m visguard.cdk_app``: synthesize the sample app (the CDK CLI runs this, see cdk.json)."""

import sys

from visguard.constructs.compat import UnsupportedCdkVersion, require_supported

try:
    require_supported()  # aws-cdk-lib missing or too old: one line with the command that installs it, exit 1
except UnsupportedCdkVersion as exc:
    print(f"visguard.cdk_app: {exc}", file=sys.stderr)
    sys.exit(1)

from visguard.cdk_app.app import main  # noqa: E402

main()
