"""``python -P -m visguard.cdk_app``: synthesize the sample app (the CDK CLI runs this, see cdk.json)."""

from visguard.cdk_app.app import main

main()
