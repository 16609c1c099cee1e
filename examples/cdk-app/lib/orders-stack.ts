import { Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';

const ORDERS_VISIBILITY = Duration.minutes(5);

export class OrdersStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps & { extra?: sqs.QueueProps }) {
    super(scope, id, props);

    const orders = new sqs.Queue(this, 'OrdersQueue', {
      visibilityTimeout: ORDERS_VISIBILITY,
      deadLetterQueue: {
        queue: ordersDlq,
        maxReceiveCount: 2,
      },
    });

    const ordersDlq = new sqs.Queue(this, 'OrdersDlq', {
      retentionPeriod: Duration.days(4),
    });

    const audit = new sqs.Queue(this, 'AuditQueue', {
      visibilityTimeout: Duration.seconds(120),
    });

    const tuned = new sqs.Queue(this, 'TunedQueue', {
      ...props?.extra,
      visibilityTimeout: props?.extra?.visibilityTimeout,
    });

    const handler = new lambda.Function(this, 'OrdersHandler', {
      runtime: lambda.Runtime.NODEJS_20_X,
      handler: 'index.handler',
      code: lambda.Code.fromAsset('lambda'),
      timeout: Duration.seconds(30),
    });
    handler.addEventSource(new SqsEventSource(orders, { batchSize: 1 }));
    handler.addEventSource(new SqsEventSource(audit, { batchSize: 1 }));
    handler.addEventSource(new SqsEventSource(tuned, { batchSize: 1 }));
  }
}
