// The ns-3 side of `fanin crosscheck tcp` (ns3_tcp.py compiles it with cppyy after
// ns3_incast.cc, whose FlooredDctcp and SetPicoResolution it uses): an N-to-1 star of
// NewReno or DCTCP senders, either a synchronised incast (every sender writes its bytes at
// one start time) or long flows (the run stops at a time limit and the bottleneck queue
// disc's length is traced after a warm-up).
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace fanin_tcp
{
using namespace ns3;

struct Flow
{
    Ptr<Socket> socket;
    uint64_t written = 0;
    uint64_t rx = 0;              // bytes the receiver has read
    int64_t rxDonePs = -1;        // receiver has every byte (from the start time)
    uint32_t highAck = 0;         // last HighestRxAck value
    uint32_t ackTarget = 0;       // HighestRxAck that acknowledges the last byte
    int64_t fctPs = -1;           // sender has the ACK of its last byte (from the start time)
    uint32_t congState = 0;
    uint32_t lossEntries = 0;     // entries into CA_LOSS (a retransmission timeout)
    uint32_t rtoFirings = 0;      // every timeout, backed-off ones included (RTO doubling)
    uint32_t recoveries = 0;      // entries into CA_RECOVERY (fast recovery)
    uint32_t cwrs = 0;            // entries into CA_CWR (ECN cuts)
    uint32_t cwrToLoss = 0;       // timeouts that struck in CA_CWR with SACKed data: the
                                  // dup-ACKs were there, but ns-3's DupAck() ignores them in CA_CWR
    uint64_t retxBytes = 0;       // payload bytes retransmitted
    uint64_t retxPkts = 0;
    uint32_t cwnd = 0;
    uint32_t ssthresh = 0;
    int64_t rtoPs = 0;            // last traced RTO value
    int64_t rtoAtStartPs = 0;     // the RTO when the data was written
    bool aborted = false;         // closed with an error (data retries exhausted)
};

struct State
{
    std::vector<int64_t> offsetsPs; // per sender: when it writes its data, after the start

    uint32_t n = 0;
    uint64_t bytes = 0;
    int64_t t0Ps = 0;
    bool started = false;
    bool longFlows = false;
    int64_t traceFromPs = -1;
    uint32_t done = 0;
    int64_t ictPs = -1;
    int64_t rxIctPs = -1;
    uint32_t rxDone = 0;
    uint32_t unconnected = 0; // senders without a SYN-ACK when the data is written

    std::vector<Flow> flows;
    std::vector<Ptr<Socket>> accepted;
    Ptr<Socket> listener;
    std::map<uint32_t, uint32_t> ipToIdx;
    std::map<Socket*, uint32_t> rxIdx;

    Ptr<QueueDisc> bottleneck;
    QueueDiscContainer qdiscs;
    NetDeviceContainer devices;
    uint32_t qLen = 0;
    uint32_t qPeak = 0;
    std::vector<int64_t> qTimePs;
    std::vector<uint32_t> qLenLog;
};

static State* g = nullptr;

void
Reset()
{
    delete g;
    g = nullptr;
}

static void
OnQlen(uint32_t, uint32_t newLen)
{
    g->qLen = newLen;
    if (g->started)
    {
        g->qPeak = std::max(g->qPeak, newLen);
    }
    if (g->traceFromPs >= 0)
    {
        int64_t now = Simulator::Now().GetPicoSeconds();
        if (now >= g->traceFromPs)
        {
            g->qTimePs.push_back(now);
            g->qLenLog.push_back(newLen);
        }
    }
}

static void
StartQueueTrace()
{
    g->qTimePs.push_back(Simulator::Now().GetPicoSeconds());
    g->qLenLog.push_back(g->qLen);
}

static void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t s)
{
    Flow& f = g->flows[i];
    f.congState = uint32_t(s);
    if (!g->started)
    {
        return;
    }
    if (s == TcpSocketState::CA_LOSS)
    {
        f.lossEntries++;
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(f.socket);
        if (old == TcpSocketState::CA_CWR && tcp && tcp->GetTxBuffer()->GetSacked() > 0)
        {
            f.cwrToLoss++;
        }
    }
    else if (s == TcpSocketState::CA_RECOVERY)
    {
        f.recoveries++;
    }
    else if (s == TcpSocketState::CA_CWR)
    {
        f.cwrs++;
    }
}

// ReTxTimeout doubles m_rto (a traced value) once per timeout; nothing else doubles it
// exactly, so a change new == 2 x old while in CA_LOSS counts one timeout firing.
static void
OnRto(uint32_t i, Time oldV, Time newV)
{
    Flow& f = g->flows[i];
    f.rtoPs = newV.GetPicoSeconds();
    if (g->started && oldV.GetPicoSeconds() > 0 && newV.GetPicoSeconds() == 2 * oldV.GetPicoSeconds())
    {
        f.rtoFirings++;
    }
}

static void
OnRetx(uint32_t i,
       const Ptr<const Packet> p,
       const TcpHeader&,
       const Address&,
       const Address&,
       const Ptr<const TcpSocketBase>)
{
    g->flows[i].retxBytes += p->GetSize();
    g->flows[i].retxPkts++;
}

static void
OnCwnd(uint32_t i, uint32_t, uint32_t v)
{
    g->flows[i].cwnd = v;
}

static void
OnSsthresh(uint32_t i, uint32_t, uint32_t v)
{
    g->flows[i].ssthresh = v;
}

static void
Finish()
{
    int64_t now = Simulator::Now().GetPicoSeconds();
    g->ictPs = now - g->t0Ps;
    Simulator::Stop();
}

static void
OnHighAck(uint32_t i, SequenceNumber32, SequenceNumber32 v)
{
    Flow& f = g->flows[i];
    f.highAck = v.GetValue();
    if (g->started && f.fctPs < 0 && SequenceNumber32(f.highAck) >= SequenceNumber32(f.ackTarget))
    {
        f.fctPs = Simulator::Now().GetPicoSeconds() - g->t0Ps;
        if (++g->done == g->n && !g->longFlows)
        {
            Finish();
        }
    }
}

static void
OnErrorClose(uint32_t i, Ptr<Socket>)
{
    g->flows[i].aborted = true;
}

static void
OnNormalClose(Ptr<Socket>)
{
}

static void
TrySend(uint32_t i)
{
    Flow& f = g->flows[i];
    while (f.written < g->bytes)
    {
        uint64_t chunk = std::min<uint64_t>(g->bytes - f.written, f.socket->GetTxAvailable());
        if (chunk == 0)
        {
            break;
        }
        int sent = f.socket->Send(Create<Packet>(uint32_t(chunk)));
        if (sent <= 0)
        {
            break;
        }
        f.written += uint64_t(sent);
    }
}

static void
OnSendSpace(uint32_t i, Ptr<Socket>, uint32_t)
{
    if (g->started)
    {
        TrySend(i);
    }
}

static void
StartIncast()
{
    g->started = true;
    g->qPeak = g->qLen;
    for (uint32_t i = 0; i < g->n; i++)
    {
        Flow& f = g->flows[i];
        if (f.highAck == 0)
        {
            g->unconnected++; // the SYN-ACK sets HighestRxAck to 1
        }
        f.ackTarget = f.highAck + uint32_t(g->bytes); // sequence space wraps at 2^32
        f.rtoAtStartPs = f.rtoPs;
        if (i < g->offsetsPs.size() && g->offsetsPs[i] > 0)
        {
            Simulator::Schedule(PicoSeconds(g->offsetsPs[i]), &TrySend, i);
        }
        else
        {
            TrySend(i);
        }
    }
}

// Per-sender start offsets (fanin's jittered starts), set after Build and before Run.
void
SetOffsets(const std::vector<int64_t>& offsets)
{
    g->offsetsPs = offsets;
}

static void
OnRecv(Ptr<Socket> s)
{
    auto it = g->rxIdx.find(PeekPointer(s));
    uint32_t idx = (it == g->rxIdx.end()) ? UINT32_MAX : it->second;
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        if (idx == UINT32_MAX)
        {
            continue;
        }
        Flow& f = g->flows[idx];
        f.rx += p->GetSize();
        if (f.rx >= g->bytes && f.rxDonePs < 0)
        {
            f.rxDonePs = Simulator::Now().GetPicoSeconds() - g->t0Ps;
            if (++g->rxDone == g->n)
            {
                g->rxIctPs = f.rxDonePs;
            }
        }
    }
}

static void
OnAccept(Ptr<Socket> s, const Address& from)
{
    uint32_t ip = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    auto it = g->ipToIdx.find(ip);
    if (it != g->ipToIdx.end())
    {
        g->rxIdx[PeekPointer(s)] = it->second;
    }
    s->SetRecvCallback(MakeCallback(&OnRecv));
    g->accepted.push_back(s);
}

static void
ConnectSender(uint32_t i, InetSocketAddress to)
{
    g->flows[i].socket->Connect(to);
}

// Builds the star and schedules the traffic.
//   cc: 0 = TcpNewReno (ECN off, drop-tail FIFO queue discs),
//       1 = fanin::FlooredDctcp, 2 = mainline TcpDctcp (both: RED as a step marker at K)
//   segSize: TCP payload per segment (SegmentSize); with timestamps the IP packet is
//            segSize + 52 B
//   longFlows: do not stop when every flow is done (the run ends at limitPs)
//   traceFromPs: log every change of the bottleneck queue disc's length from then on (-1: off)
//   connectGapPs: sender i connects at i x connectGapPs (SYNs sent all at once overflow a
//                 small bottleneck buffer, and a lost SYN is retried only after 3 s)
void
Build(uint32_t n,
      uint64_t bytes,
      uint64_t rateBps,
      int64_t delayPs,
      uint32_t cc,
      uint32_t ecnK,
      uint32_t bufferPkts,
      uint32_t mtu,
      uint32_t segSize,
      int64_t minRtoPs,
      int64_t clockGranularityPs,
      uint32_t initCwnd,
      double dctcpG,
      uint32_t seed,
      int64_t startPs,
      int64_t limitPs,
      bool longFlows,
      int64_t traceFromPs,
      int64_t connectGapPs)
{
    Reset();
    g = new State();
    g->n = n;
    g->bytes = bytes;
    g->t0Ps = startPs;
    g->longFlows = longFlows;
    g->traceFromPs = traceFromPs;
    g->flows.resize(n);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);

    bool dctcp = cc != 0;
    TypeId ccType = cc == 0   ? TcpNewReno::GetTypeId()
                    : cc == 1 ? fanin_xc::FlooredDctcp::GetTypeId()
                              : TcpDctcp::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(dctcpG));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));
    Config::SetDefault("ns3::TcpDctcp::UseEct0", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(UINT32_MAX));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(PicoSeconds(minRtoPs)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(PicoSeconds(clockGranularityPs)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(dctcp ? TcpSocketState::On : TcpSocketState::Off));

    NodeContainer hosts;
    hosts.Create(n + 1);
    Ptr<Node> sw = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateBps)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(PicoSeconds(delayPs)));
    // Device queue: 1 packet (the minimum) with flow control, so the backlog builds in
    // the queue disc; fanin's `device_queue = "1pkt"` is the same split.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    TrafficControlHelper tch;
    QueueSizeValue limit(QueueSize(QueueSizeUnit::PACKETS, bufferPkts));
    if (dctcp)
    {
        // Step marking: every arrival that finds >= K packets in the queue disc is marked
        // (Gentle off, MinTh = MaxTh = K, QW = 1: the "forced" branch marks ECT packets).
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", limit,
                             "MinTh", DoubleValue(ecnK),
                             "MaxTh", DoubleValue(ecnK),
                             "QW", DoubleValue(1.0),
                             "LInterm", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "LinkBandwidth", DataRateValue(DataRate(rateBps)),
                             "LinkDelay", TimeValue(PicoSeconds(delayPs)));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", limit);
    }

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    Ipv4Address rxAddr;
    for (uint32_t i = 0; i <= n; i++)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw); // d.Get(0) host, d.Get(1) switch
        QueueDiscContainer q = tch.Install(d); // before Assign: no default FqCoDel
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        addr.NewNetwork();
        g->devices.Add(d);
        g->qdiscs.Add(q);
        if (i < n)
        {
            g->ipToIdx[ifs.GetAddress(0).Get()] = i;
        }
        else
        {
            rxAddr = ifs.GetAddress(0);
            g->bottleneck = q.Get(1); // switch -> receiver egress
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    g->bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQlen));

    const uint16_t port = 5001;
    g->listener = Socket::CreateSocket(hosts.Get(n), TcpSocketFactory::GetTypeId());
    g->listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    g->listener->Listen();
    g->listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                   MakeCallback(&OnAccept));

    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<Socket> s = Socket::CreateSocket(hosts.Get(i), TcpSocketFactory::GetTypeId());
        s->Bind();
        s->SetSendCallback(MakeBoundCallback(&OnSendSpace, i));
        s->SetCloseCallbacks(MakeCallback(&OnNormalClose), MakeBoundCallback(&OnErrorClose, i));
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
        s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetx, i));
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
        s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighAck, i));
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
        g->flows[i].socket = s;
        Simulator::ScheduleWithContext(hosts.Get(i)->GetId(),
                                       PicoSeconds(connectGapPs * int64_t(i)),
                                       &ConnectSender,
                                       i,
                                       InetSocketAddress(rxAddr, port));
    }
    Simulator::Schedule(PicoSeconds(startPs), &StartIncast);
    if (traceFromPs >= 0)
    {
        Simulator::Schedule(PicoSeconds(traceFromPs), &StartQueueTrace);
    }
    Simulator::Stop(PicoSeconds(limitPs));
}

// ---- Results, read after Simulator::Run().
int64_t IctPs() { return g->ictPs; }
uint32_t Unconnected() { return g->unconnected; }
int64_t RxIctPs() { return g->rxIctPs; }
int64_t NowPs() { return Simulator::Now().GetPicoSeconds(); }
uint64_t Events() { return Simulator::GetEventCount(); }

#define FANIN_TCP_COLUMN(NAME, TYPE, EXPR)                                                   \
    std::vector<TYPE> NAME()                                                                 \
    {                                                                                        \
        std::vector<TYPE> out;                                                               \
        for (const Flow& f : g->flows)                                                       \
        {                                                                                    \
            out.push_back(TYPE(EXPR));                                                       \
        }                                                                                    \
        return out;                                                                          \
    }
FANIN_TCP_COLUMN(FctPs, int64_t, f.fctPs)
FANIN_TCP_COLUMN(RxDonePs, int64_t, f.rxDonePs)
FANIN_TCP_COLUMN(LossEntries, int64_t, f.lossEntries)
FANIN_TCP_COLUMN(RtoFirings, int64_t, f.rtoFirings)
FANIN_TCP_COLUMN(Recoveries, int64_t, f.recoveries)
FANIN_TCP_COLUMN(Cwrs, int64_t, f.cwrs)
FANIN_TCP_COLUMN(CwrToLoss, int64_t, f.cwrToLoss)
FANIN_TCP_COLUMN(RetxBytes, int64_t, f.retxBytes)
FANIN_TCP_COLUMN(RetxPkts, int64_t, f.retxPkts)
FANIN_TCP_COLUMN(Cwnd, int64_t, f.cwnd)
FANIN_TCP_COLUMN(Ssthresh, int64_t, f.ssthresh)
FANIN_TCP_COLUMN(RtoAtStartPs, int64_t, f.rtoAtStartPs)
FANIN_TCP_COLUMN(Aborted, int64_t, f.aborted ? 1 : 0)
FANIN_TCP_COLUMN(RxBytes, int64_t, f.rx)
FANIN_TCP_COLUMN(CongStateNow, int64_t, f.congState)
#undef FANIN_TCP_COLUMN

std::vector<int64_t> QueueTimesPs() { return g->qTimePs; }
std::vector<int64_t> QueueLens() { return std::vector<int64_t>(g->qLenLog.begin(), g->qLenLog.end()); }
uint32_t PeakQueuePkts() { return g->qPeak; }
uint64_t BottleneckDrops() { return g->bottleneck->GetStats().nTotalDroppedPackets; }
uint64_t BottleneckMarks() { return g->bottleneck->GetStats().nTotalMarkedPackets; }
uint64_t BottleneckRxPkts() { return g->bottleneck->GetStats().nTotalReceivedPackets; }
uint64_t BottleneckRxBytes() { return g->bottleneck->GetStats().nTotalReceivedBytes; }
// Drops in every queue disc and every device queue (host NICs and switch ports).
uint64_t AllDrops()
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < g->qdiscs.GetN(); i++)
    {
        s += g->qdiscs.Get(i)->GetStats().nTotalDroppedPackets;
    }
    for (uint32_t i = 0; i < g->devices.GetN(); i++)
    {
        s += DynamicCast<PointToPointNetDevice>(g->devices.Get(i))->GetQueue()->GetTotalDroppedPackets();
    }
    return s;
}
} // namespace fanin_tcp
